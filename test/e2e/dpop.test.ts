import type { ClientInput } from '@gatehouse-oidc/core';
import { buildServer, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESSES } from '../adapters/harnesses.js';
import { InjectBrowser } from '../server/pages-support.js';
import { signInThroughPages } from '../server/sign-in-support.js';
import {
  API_RESOURCE,
  clientKeyPair,
  OTHER_RESOURCE,
  SECRETS,
  TEST_ACCOUNTS,
  testRealm,
} from '../support/fixtures.js';
import { JWT_BEARER, TestIdp } from '../support/id-jag-idp.js';
import { freePort } from '../support/ports.js';
import { codeRequest } from './code-request.js';
import { type RunningGatehouse, startGatehouse } from './gatehouse-server.js';
import { hostInteractionUrl, signInAs, userAgent } from './user-agent.js';

/**
 * openid-client v6 drives DPoP (RFC 9449) against Gatehouse over real HTTP, in every framework
 * adapter and in the standalone server, with server nonces required: it learns the nonce from
 * `use_dpop_nonce` and retries on its own. A public client binds its code (`dpop_jkt`), its tokens
 * and its refresh token to its key and reads userinfo with proofs; a confidential client gets a
 * bound client-credentials token, and an agent gets bound tokens from a CIBA poll, an ID-JAG
 * (jwt-bearer) and a token exchange.
 */

const REALM = 'dpop';
const REDIRECT_URI = 'https://app.example.com/cb';
const PUBLIC_APP = {
  client_id: 'dpop-spa',
  token_endpoint_auth_method: 'none',
  redirect_uris: [REDIRECT_URI],
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'openid profile',
  skip_consent: true,
} as const satisfies ClientInput;
const SERVICE = {
  client_id: 'dpop-service',
  client_secret: SECRETS.post,
  token_endpoint_auth_method: 'client_secret_post',
  grant_types: ['client_credentials'],
  scope: 'api:read',
  dpop_bound_access_tokens: true,
} as const satisfies ClientInput;
const CIBA = 'urn:openid:params:grant-type:ciba';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
/** A confidential agent: CIBA (after a sign-in gives it an ID token hint), ID-JAGs, exchange. */
const AGENT = {
  client_id: 'dpop-agent',
  client_secret: SECRETS.basic,
  token_endpoint_auth_method: 'client_secret_post',
  redirect_uris: [REDIRECT_URI],
  grant_types: ['authorization_code', CIBA, JWT_BEARER, TOKEN_EXCHANGE],
  scope: 'openid profile api:read other:read',
  skip_consent: true,
  token_exchange: { resources: [OTHER_RESOURCE] },
} as const satisfies ClientInput;
/** The enterprise IdP whose ID-JAGs the realm trusts (its keys inline: nothing to fetch). */
const idp = await TestIdp.create();
const TRUSTED_ISSUERS = [
  { issuer: idp.issuer, jwks: idp.jwks as never, profile: 'id-jag' as const },
];
/** Polls may come every second: the CIBA scenario waits one interval, not five. */
const CIBA_SETTINGS = { interval: 1 };

/** Where openid-client finds the realm, and how the user signs in there. */
interface Target {
  issuer: string;
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  insecure?: boolean;
  /** Follows the authorization URL through the sign-in; the URL the client is sent back to. */
  signIn(url: URL): Promise<URL>;
  /** The user approves this CIBA request on their authenticator. */
  approveCiba(authReqId: string): Promise<void>;
}

/** Every token-endpoint answer, status and error, in order: the nonce round trips show here. */
function observed(target: Target) {
  const tokenAnswers: string[] = [];
  const send = target.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
  const options: oidc.DiscoveryRequestOptions = {
    [oidc.customFetch]: async (url: string, init: RequestInit) => {
      const response = await send(url, init);
      if (url.endsWith('/token')) {
        const error =
          response.status === 200
            ? ''
            : ` ${((await response.clone().json()) as { error?: string }).error}`;
        tokenAnswers.push(`${response.status}${error}`);
      }
      return response;
    },
    ...(target.insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
  };
  return { tokenAnswers, options };
}

function dpopScenarios(target: () => Target) {
  it('runs the code flow with dpop_jkt, refresh and userinfo on one key, nonces and all', async () => {
    const { issuer } = target();
    const { tokenAnswers, options } = observed(target());
    const config = await oidc.discovery(
      new URL(issuer),
      PUBLIC_APP.client_id,
      undefined,
      oidc.None(),
      options,
    );
    expect(config.serverMetadata().dpop_signing_alg_values_supported).toContain('ES256');
    const keyPair = await oidc.randomDPoPKeyPair('ES256');
    const dpop = oidc.getDPoPHandle(config, keyPair);
    const request = await codeRequest(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid profile',
      dpop_jkt: await dpop.calculateThumbprint(),
    });
    const callback = await target().signIn(oidc.buildAuthorizationUrl(config, request.parameters));

    const tokens = await request.redeem(callback, { DPoP: dpop });
    expect(tokens.token_type).toBe('dpop');
    const jkt = await dpop.calculateThumbprint();
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });
    // The first proof had no nonce: asked for one, openid-client sent the request again.
    expect(tokenAnswers).toEqual(['400 use_dpop_nonce', '200']);

    const claims = await oidc.fetchUserInfo(config, tokens.access_token, 'alice', { DPoP: dpop });
    expect(claims.sub).toBe('alice');

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token ?? '', undefined, {
      DPoP: dpop,
    });
    expect(refreshed.token_type).toBe('dpop');
    expect(decodeJwt(refreshed.access_token).cnf).toEqual({ jkt });

    // The refresh token is bound: another key cannot use it.
    const stranger = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
    await expect(
      oidc.refreshTokenGrant(config, refreshed.refresh_token ?? '', undefined, {
        DPoP: stranger,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('gets a bound client-credentials token for a client that must use DPoP', async () => {
    const { issuer } = target();
    const { options } = observed(target());
    const config = await oidc.discovery(
      new URL(issuer),
      SERVICE.client_id,
      undefined,
      oidc.ClientSecretPost(SERVICE.client_secret),
      options,
    );
    await expect(oidc.clientCredentialsGrant(config, { scope: 'api:read' })).rejects.toMatchObject({
      error: 'invalid_dpop_proof',
    });
    const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
    const tokens = await oidc.clientCredentialsGrant(config, { scope: 'api:read' }, { DPoP: dpop });
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt: await dpop.calculateThumbprint() });
  });

  /** openid-client's view of the agent, and a DPoP key of its own. */
  async function agent() {
    const { tokenAnswers, options } = observed(target());
    const config = await oidc.discovery(
      new URL(target().issuer),
      AGENT.client_id,
      undefined,
      oidc.ClientSecretPost(AGENT.client_secret),
      options,
    );
    const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
    return { config, dpop, jkt: await dpop.calculateThumbprint(), tokenAnswers };
  }

  it('polls for a CIBA grant with proofs and gets tokens bound to its key', async () => {
    const { config, dpop, jkt, tokenAnswers } = await agent();
    // The ID token hint CIBA needs comes from an ordinary sign-in, without DPoP.
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const signedIn = await oidc.authorizationCodeGrant(config, await target().signIn(url), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
    expect(signedIn.token_type).toBe('bearer');

    const started = await oidc.initiateBackchannelAuthentication(config, {
      scope: 'openid profile',
      id_token_hint: signedIn.id_token ?? '',
    });
    await target().approveCiba(started.auth_req_id);
    const tokens = await oidc.pollBackchannelAuthenticationGrant(config, started, undefined, {
      DPoP: dpop,
    });
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: 'alice', cnf: { jkt } });
    // The sign-in's token request had no proof; the first poll's proof was asked for a nonce.
    expect(tokenAnswers).toEqual(['200', '400 use_dpop_nonce', '200']);
  });

  it('presents an ID-JAG with proofs, then exchanges the token, each bound to its key', async () => {
    const { config, dpop, jkt } = await agent();
    const assertion = await idp.mint({
      sub: 'alice',
      aud: target().issuer,
      client_id: AGENT.client_id,
      resource: API_RESOURCE,
      scope: 'api:read other:read',
    });
    const granted = await oidc.genericGrantRequest(
      config,
      JWT_BEARER,
      { assertion },
      { DPoP: dpop },
    );
    expect(granted.token_type).toBe('dpop');
    expect(decodeJwt(granted.access_token)).toMatchObject({
      sub: 'alice',
      aud: API_RESOURCE,
      cnf: { jkt },
    });

    const exchanged = await oidc.genericGrantRequest(
      config,
      TOKEN_EXCHANGE,
      {
        subject_token: granted.access_token,
        subject_token_type: ACCESS_TOKEN_TYPE,
        resource: OTHER_RESOURCE,
      },
      { DPoP: dpop },
    );
    expect(exchanged).toMatchObject({ token_type: 'dpop', issued_token_type: ACCESS_TOKEN_TYPE });
    expect(decodeJwt(exchanged.access_token)).toMatchObject({
      sub: 'alice',
      aud: OTHER_RESOURCE,
      scope: 'other:read',
      cnf: { jkt },
    });
  });
}

describe.each(HARNESSES)('DPoP with openid-client through $name', (harness) => {
  let gatehouse: RunningGatehouse;
  beforeAll(async () => {
    const base = testRealm(await clientKeyPair(), {
      name: REALM,
      dpop: { require_nonce: true },
      ciba: CIBA_SETTINGS,
      trusted_issuers: TRUSTED_ISSUERS,
    });
    gatehouse = await startGatehouse(
      harness,
      [{ ...base, clients: [...(base.clients ?? []), PUBLIC_APP, SERVICE, AGENT] }],
      {
        accounts: TEST_ACCOUNTS,
        interactionUrl: hostInteractionUrl,
        authenticatorPush: { notify: async () => {} },
      },
    );
  });
  afterAll(() => gatehouse?.close());

  dpopScenarios(() => ({
    issuer: gatehouse.issuer(REALM),
    fetch: gatehouse.fetch,
    signIn: (url) => userAgent(gatehouse, signInAs('alice')).navigate(url),
    async approveCiba(authReqId) {
      expect(await gatehouse.ciba.approve(REALM, authReqId)).toBe(true);
    },
  }));
});

describe('DPoP with openid-client against the standalone server', () => {
  const PASSWORD = 'alice-dpop-password';
  const ADMIN_TOKEN = 'dpop-admin-token-0123456789abcdef0123';
  let gatehouse: Server;
  let baseUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const config = parseServerConfig({
      base_url: baseUrl,
      admin_token: ADMIN_TOKEN,
      cookie_secret: 'dpop-cookie-secret-0123456789abcdef0123',
      realms: [
        {
          name: REALM,
          scopes: ['openid', 'profile', 'api:read', 'other:read'],
          dpop: { require_nonce: true },
          // The webhook the server would push to; the push below stands in for it.
          ciba: { ...CIBA_SETTINGS, authenticator: { webhook_url: 'https://push.example.com' } },
          trusted_issuers: TRUSTED_ISSUERS,
          resources: [
            { uri: API_RESOURCE, client_id: SERVICE.client_id, scopes: ['api:read'] },
            { uri: OTHER_RESOURCE, client_id: SERVICE.client_id, scopes: ['other:read'] },
          ],
          clients: [PUBLIC_APP, SERVICE, AGENT],
          users: [{ sub: 'alice', username: 'alice', password: PASSWORD, claims: { name: 'A' } }],
        },
      ],
    });
    // The user's authenticator answers through the admin API below: nothing to push to.
    gatehouse = buildServer(config, { authenticatorPush: { notify: async () => {} } });
    await gatehouse.app.listen({ port, host: '127.0.0.1' });
  });
  afterAll(() => gatehouse?.app.close());

  dpopScenarios(() => ({
    issuer: `${baseUrl}/oauth/${REALM}`,
    insecure: true,
    signIn: (url) =>
      signInThroughPages(new InjectBrowser(gatehouse.app, baseUrl), url.href, {
        username: 'alice',
        password: PASSWORD,
      }),
    async approveCiba(authReqId) {
      const answer = await fetch(`${baseUrl}/admin/realms/${REALM}/ciba/${authReqId}/approve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(answer.status).toBe(204);
    },
  }));
});
