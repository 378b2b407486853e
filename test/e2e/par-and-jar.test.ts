import type { ClientInput, RealmInput } from '@gatehouse-oidc/core';
import { buildServer, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import { decodeJwt, SignJWT } from 'jose';
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
 * openid-client v6 sends pushed (RFC 9126) and signed (RFC 9101) authorization requests to
 * Gatehouse over real HTTP, in every framework adapter and in the standalone server: a code flow
 * pushed with private_key_jwt, a request object signed with the client's key in the URL, one
 * pushed by a client_secret_post client, one signed HS256 with the client secret, clients and
 * realms that take pushed requests only, and a pushed request binding the code to a DPoP key.
 */

const REALM = 'jar';
/** A realm whose every authorization request must be pushed. */
const PAR_REALM = 'par-only';
const REDIRECT_URI = 'https://app.example.com/cb';
const SCOPE = 'openid profile';
const keys = await clientKeyPair('ES256', 'request-object-key');
/** openid-client signs request objects with the key, and names it. */
const SIGNING_KEY = { key: keys.privateKey, kid: keys.publicJwk.kid };

/** Request objects on; DPoP proofs must carry the server's nonce, at the PAR endpoint too. */
const REALM_SETTINGS = {
  request_object_signing_alg_values_supported: ['ES256', 'HS256'],
  dpop: { require_nonce: true },
} as const satisfies Partial<RealmInput>;
const browserApp = {
  redirect_uris: [REDIRECT_URI],
  grant_types: ['authorization_code'],
  scope: SCOPE,
  skip_consent: true,
} as const satisfies Partial<ClientInput>;
/** Authenticates with private_key_jwt and signs request objects with the same key. */
const KEY_APP = {
  ...browserApp,
  client_id: 'jar-key-app',
  token_endpoint_auth_method: 'private_key_jwt',
  jwks: { keys: [keys.publicJwk as never] },
} as const satisfies ClientInput;
/** Authenticates with its secret; signs request objects with its key or, HS256, its secret. */
const SECRET_APP = {
  ...browserApp,
  client_id: 'jar-secret-app',
  client_secret: SECRETS.post,
  token_endpoint_auth_method: 'client_secret_post',
  jwks: { keys: [keys.publicJwk as never] },
} as const satisfies ClientInput;
/** A public client whose requests must be pushed. */
const PUSHING_SPA = {
  ...browserApp,
  client_id: 'par-spa',
  token_endpoint_auth_method: 'none',
  require_pushed_authorization_requests: true,
} as const satisfies ClientInput;
const CLIENTS = [KEY_APP, SECRET_APP, PUSHING_SPA];

/** Where openid-client finds the realms, and how the browser gets through them. */
interface Target {
  issuer(realm: string): string;
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  insecure?: boolean;
  /** Follows the authorization URL through the sign-in; the URL the client is sent back to. */
  signIn(url: URL): Promise<URL>;
  /** Follows an authorization URL sent straight back to the client, with an error. */
  bounce(url: URL): Promise<URL>;
}

function parAndJarScenarios(target: () => Target) {
  const connect = (client: ClientInput, auth: oidc.ClientAuth, realm = REALM) => {
    const { issuer, fetch: send, insecure } = target();
    return oidc.discovery(new URL(issuer(realm)), client.client_id, undefined, auth, {
      ...(send ? { [oidc.customFetch]: send } : {}),
      ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
    });
  };
  const keyAuth = () => oidc.PrivateKeyJwt(SIGNING_KEY);
  const secretAuth = () => oidc.ClientSecretPost(SECRETS.post);

  /** Signs in through `url` and redeems the code; the ID token's subject. */
  async function signedInAs(url: URL, request: Awaited<ReturnType<typeof codeRequest>>) {
    const tokens = await request.redeem(await target().signIn(url));
    return tokens.claims()?.sub;
  }

  it('pushes the code request with private_key_jwt, and the browser carries only its reference', async () => {
    const config = await connect(KEY_APP, keyAuth());
    expect(config.serverMetadata().pushed_authorization_request_endpoint).toBe(
      `${target().issuer(REALM)}/par`,
    );
    const request = await codeRequest(config, { redirect_uri: REDIRECT_URI, scope: SCOPE });
    const url = await oidc.buildAuthorizationUrlWithPAR(config, request.parameters);
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    expect(await signedInAs(url, request)).toBe('alice');
  });

  it('sends a request object signed with the client key, once', async () => {
    const config = await connect(KEY_APP, keyAuth());
    expect(config.serverMetadata().request_object_signing_alg_values_supported).toEqual([
      'ES256',
      'HS256',
    ]);
    const request = await codeRequest(config, { redirect_uri: REDIRECT_URI, scope: SCOPE });
    const url = await oidc.buildAuthorizationUrlWithJAR(config, request.parameters, SIGNING_KEY);
    expect(url.searchParams.has('request')).toBe(true);
    expect(await signedInAs(url, request)).toBe('alice');
    // openid-client gives each object a jti: the same URL a second time is refused, at Gatehouse.
    await expect(target().signIn(url)).rejects.toThrow(
      /400[\s\S]*the request object was used before/,
    );
  });

  it('pushes a request object signed by a client_secret_post client (JAR through PAR)', async () => {
    const config = await connect(SECRET_APP, secretAuth());
    const request = await codeRequest(config, { redirect_uri: REDIRECT_URI, scope: SCOPE });
    const signed = await oidc.buildAuthorizationUrlWithJAR(config, request.parameters, SIGNING_KEY);
    const url = await oidc.buildAuthorizationUrlWithPAR(config, signed.searchParams);
    expect(url.searchParams.has('request')).toBe(false);
    expect(await signedInAs(url, request)).toBe('alice');
  });

  it('pushes a request object signed HS256 with the client secret', async () => {
    const config = await connect(SECRET_APP, secretAuth());
    const request = await codeRequest(config, { redirect_uri: REDIRECT_URI, scope: SCOPE });
    // openid-client signs request objects with private keys only: jose signs this one.
    const object = await new SignJWT({
      ...request.parameters,
      response_type: 'code',
      client_id: SECRET_APP.client_id,
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'oauth-authz-req+jwt' })
      .setIssuer(SECRET_APP.client_id)
      .setAudience(target().issuer(REALM))
      .setIssuedAt()
      .setNotBefore('0s')
      .setExpirationTime('1m')
      .setJti(oidc.randomState())
      .sign(new TextEncoder().encode(SECRETS.post));
    const url = await oidc.buildAuthorizationUrlWithPAR(config, { request: object });
    expect(await signedInAs(url, request)).toBe('alice');
    // The same object pushed again is a replay.
    await expect(
      oidc.buildAuthorizationUrlWithPAR(config, { request: object }),
    ).rejects.toMatchObject({
      error: 'invalid_request_object',
      error_description: 'the request object was used before',
    });
  });

  it('refuses a plain request where the client or the realm requires pushing', async () => {
    for (const realm of [REALM, PAR_REALM]) {
      const config = await connect(PUSHING_SPA, oidc.None(), realm);
      expect(config.serverMetadata().require_pushed_authorization_requests).toBe(
        realm === PAR_REALM,
      );
      const plain = await codeRequest(config, { redirect_uri: REDIRECT_URI, scope: SCOPE });
      const callback = await target().bounce(oidc.buildAuthorizationUrl(config, plain.parameters));
      await expect(plain.redeem(callback)).rejects.toMatchObject({ error: 'invalid_request' });

      const pushed = await codeRequest(config, { redirect_uri: REDIRECT_URI, scope: SCOPE });
      const url = await oidc.buildAuthorizationUrlWithPAR(config, pushed.parameters);
      expect(await signedInAs(url, pushed)).toBe('alice');
    }
  });

  it('binds a pushed code to the DPoP key of the push and its dpop_jkt, nonces and all', async () => {
    const config = await connect(PUSHING_SPA, oidc.None());
    const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
    const jkt = await dpop.calculateThumbprint();
    const request = await codeRequest(config, {
      redirect_uri: REDIRECT_URI,
      scope: SCOPE,
      dpop_jkt: jkt,
    });
    // The push's proof has no nonce: asked for one, openid-client pushes again with it.
    const url = await oidc.buildAuthorizationUrlWithPAR(config, request.parameters, {
      DPoP: dpop,
    });
    const callback = await target().signIn(url);

    // The code is bound: a token request proving another key is refused, and the code survives.
    const stranger = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
    await expect(request.redeem(callback, { DPoP: stranger })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    const tokens = await request.redeem(callback, { DPoP: dpop });
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });
  });
}

describe.each(HARNESSES)('PAR and JAR with openid-client through $name', (harness) => {
  let gatehouse: RunningGatehouse;
  beforeAll(async () => {
    const base = testRealm(keys, { name: REALM, ...REALM_SETTINGS });
    const realm = { ...base, clients: [...(base.clients ?? []), ...CLIENTS] };
    gatehouse = await startGatehouse(
      harness,
      [realm, { ...realm, name: PAR_REALM, require_pushed_authorization_requests: true }],
      { accounts: TEST_ACCOUNTS, interactionUrl: hostInteractionUrl },
    );
  });
  afterAll(() => gatehouse?.close());

  parAndJarScenarios(() => {
    const navigate = (url: URL) => userAgent(gatehouse, signInAs('alice')).navigate(url);
    return {
      issuer: gatehouse.issuer,
      fetch: gatehouse.fetch,
      signIn: navigate,
      bounce: navigate,
    };
  });
});

describe('PAR and JAR with openid-client against the standalone server', () => {
  const PASSWORD = 'alice-par-password';
  let gatehouse: Server;
  let baseUrl: string;
  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const realm = {
      scopes: ['openid', 'profile'],
      ...REALM_SETTINGS,
      clients: CLIENTS,
      users: [{ sub: 'alice', username: 'alice', password: PASSWORD, claims: { name: 'A' } }],
    };
    const config = parseServerConfig({
      base_url: baseUrl,
      admin_token: 'par-admin-token-0123456789abcdef01234',
      cookie_secret: 'par-cookie-secret-0123456789abcdef0123',
      realms: [
        { ...realm, name: REALM },
        { ...realm, name: PAR_REALM, require_pushed_authorization_requests: true },
      ],
    });
    gatehouse = buildServer(config);
    await gatehouse.app.listen({ port, host: '127.0.0.1' });
  });
  afterAll(() => gatehouse?.app.close());

  parAndJarScenarios(() => {
    const browser = () => new InjectBrowser(gatehouse.app, baseUrl);
    return {
      issuer: (realm) => `${baseUrl}/oauth/${realm}`,
      insecure: true,
      signIn: (url) =>
        signInThroughPages(browser(), url.href, { username: 'alice', password: PASSWORD }),
      async bounce(url) {
        const answer = await browser().get(url.href);
        const location = answer.headers.location;
        if (answer.statusCode !== 302 || typeof location !== 'string') {
          throw new Error(`${url.pathname} answered ${answer.statusCode}: ${answer.body}`);
        }
        return new URL(location);
      },
    };
  });
});
