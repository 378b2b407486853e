import type { ClientInput } from '@gatehouse-oidc/core';
import { buildServer, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESSES } from '../adapters/harnesses.js';
import { InjectBrowser } from '../server/pages-support.js';
import { signInThroughPages } from '../server/sign-in-support.js';
import { clientKeyPair, SECRETS, TEST_ACCOUNTS, testRealm } from '../support/fixtures.js';
import { freePort } from '../support/ports.js';
import { codeRequest } from './code-request.js';
import { type RunningGatehouse, startGatehouse } from './gatehouse-server.js';
import { hostInteractionUrl, signInAs, userAgent } from './user-agent.js';

/**
 * openid-client v6 drives DPoP (RFC 9449) against Gatehouse over real HTTP, in every framework
 * adapter and in the standalone server, with server nonces required: it learns the nonce from
 * `use_dpop_nonce` and retries on its own. A public client binds its code (`dpop_jkt`), its tokens
 * and its refresh token to its key and reads userinfo with proofs; a confidential client gets a
 * bound client-credentials token.
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

/** Where openid-client finds the realm, and how the user signs in there. */
interface Target {
  issuer: string;
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  insecure?: boolean;
  /** Follows the authorization URL through the sign-in; the URL the client is sent back to. */
  signIn(url: URL): Promise<URL>;
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
}

describe.each(HARNESSES)('DPoP with openid-client through $name', (harness) => {
  let gatehouse: RunningGatehouse;
  beforeAll(async () => {
    const base = testRealm(await clientKeyPair(), { name: REALM, dpop: { require_nonce: true } });
    gatehouse = await startGatehouse(
      harness,
      [{ ...base, clients: [...(base.clients ?? []), PUBLIC_APP, SERVICE] }],
      { accounts: TEST_ACCOUNTS, interactionUrl: hostInteractionUrl },
    );
  });
  afterAll(() => gatehouse?.close());

  dpopScenarios(() => ({
    issuer: gatehouse.issuer(REALM),
    fetch: gatehouse.fetch,
    signIn: (url) => userAgent(gatehouse, signInAs('alice')).navigate(url),
  }));
});

describe('DPoP with openid-client against the standalone server', () => {
  const PASSWORD = 'alice-dpop-password';
  let gatehouse: Server;
  let baseUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const config = parseServerConfig({
      base_url: baseUrl,
      admin_token: 'dpop-admin-token-0123456789abcdef0123',
      cookie_secret: 'dpop-cookie-secret-0123456789abcdef0123',
      realms: [
        {
          name: REALM,
          scopes: ['openid', 'profile', 'api:read'],
          dpop: { require_nonce: true },
          clients: [PUBLIC_APP, SERVICE],
          users: [{ sub: 'alice', username: 'alice', password: PASSWORD, claims: { name: 'A' } }],
        },
      ],
    });
    gatehouse = buildServer(config);
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
  }));
});
