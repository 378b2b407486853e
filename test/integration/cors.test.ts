import { ConfigError, type GatehouseRequest } from '@gatehouse-oidc/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { FORM_HEADERS, form, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { AUTHORIZE, browser, CODE_VERIFIER, clientParams } from './browser.js';
import {
  createHarness,
  endpointPath,
  type Harness,
  INTROSPECT,
  REVOKE,
  type TestResponse,
  TOKEN,
} from './harness.js';

/** web-app's origin, from its redirect URI. */
const APP = 'https://app.example.com';
/** The single-page app's own origin, listed in its allowed_origins. */
const SPA = 'https://spa.example.com';
const STRANGER = 'https://evil.example.com';
const USERINFO = endpointPath('userinfo');
const DISCOVERY = endpointPath('.well-known/openid-configuration');
const JWKS = endpointPath('jwks');

let h: Harness;
beforeAll(async () => {
  h = await createHarness({
    extraClients: [
      {
        client_id: 'spa',
        token_endpoint_auth_method: 'none',
        redirect_uris: [WEB_REDIRECT_URI],
        allowed_origins: [SPA],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'openid profile',
        skip_consent: true,
      },
    ],
  });
});

async function send(request: Partial<GatehouseRequest>, on = h): Promise<TestResponse> {
  const response = await on.provider.handle({
    method: 'GET',
    path: TOKEN,
    query: '',
    headers: {},
    ...request,
  });
  return { ...response, json: () => JSON.parse(response.body ?? 'null') };
}

const preflight = (path: string, origin: string, method = 'POST', on = h) =>
  send(
    {
      method: 'OPTIONS',
      path,
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization, content-type, dpop',
      },
    },
    on,
  );

/** The spa signs alice in and exchanges its code from its origin, as oidc-client-ts does. */
async function spaTokens(origin = SPA) {
  const b = browser(h);
  const { params } = clientParams(await b.signIn({ client_id: 'spa', scope: 'openid profile' }));
  return send({
    method: 'POST',
    path: TOKEN,
    headers: { ...FORM_HEADERS, origin },
    body: form({
      grant_type: 'authorization_code',
      client_id: 'spa',
      code: params.code ?? '',
      redirect_uri: WEB_REDIRECT_URI,
      code_verifier: CODE_VERIFIER,
    }),
  });
}

const CORS_HEADER_NAMES = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-allow-credentials',
  'access-control-expose-headers',
];
const corsHeadersOf = (response: TestResponse) =>
  Object.fromEntries(
    Object.entries(response.headers).filter(([name]) => CORS_HEADER_NAMES.includes(name)),
  );

describe('CORS preflight', () => {
  it.each([
    [TOKEN, SPA, 'POST'],
    [TOKEN, APP, 'POST'],
    [REVOKE, SPA, 'POST'],
    [USERINFO, SPA, 'GET, HEAD, POST'],
  ])('answers %s from %s, an origin of a client of the realm', async (path, origin, methods) => {
    const response = await preflight(path, origin);
    expect({ status: response.status, headers: response.headers, body: response.body }).toEqual({
      status: 204,
      headers: {
        'access-control-allow-origin': origin,
        'access-control-allow-methods': methods,
        'access-control-allow-headers': 'Authorization, Content-Type, DPoP',
        'access-control-max-age': '600',
        vary: 'Origin',
      },
      body: undefined,
    });
  });

  it.each([TOKEN, REVOKE, USERINFO])(
    'answers %s from an unknown origin without allowing it, and never with 405',
    async (path) => {
      for (const origin of [STRANGER, 'null', `${SPA}:443`, `${SPA}/`, 'http://spa.example.com']) {
        const response = await preflight(path, origin);
        expect({ status: response.status, headers: response.headers }).toEqual({
          status: 204,
          headers: { vary: 'Origin' },
        });
      }
    },
  );

  it.each([DISCOVERY, JWKS])(
    'answers %s from the origin of a client, and from no other',
    async (path) => {
      const response = await preflight(path, SPA, 'GET');
      expect({ status: response.status, headers: response.headers }).toEqual({
        status: 204,
        headers: {
          'access-control-allow-origin': SPA,
          'access-control-allow-methods': 'GET, HEAD',
          'access-control-allow-headers': 'Authorization, Content-Type, DPoP',
          'access-control-max-age': '600',
          vary: 'Origin',
        },
      });
      const stranger = await preflight(path, STRANGER, 'GET');
      expect(stranger.headers).toEqual({ vary: 'Origin' });
    },
  );

  it.each([INTROSPECT, AUTHORIZE, endpointPath('logout'), endpointPath('session/check')])(
    'is refused at %s, which never answers CORS',
    async (path) => {
      const response = await preflight(path, SPA);
      expect(response.status).toBe(405);
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
    },
  );
});

describe('CORS on the answers', () => {
  it('lets the spa read its tokens from its own origin, never with credentials', async () => {
    const response = await spaTokens();
    expect(response.status, response.body).toBe(200);
    expect(corsHeadersOf(response)).toEqual({
      'access-control-allow-origin': SPA,
      'access-control-expose-headers': 'WWW-Authenticate, DPoP-Nonce',
    });
    expect(response.headers.vary).toBe('Origin');
  });

  it('hides the tokens of the spa from the origin of another client', async () => {
    const response = await spaTokens(APP);
    expect(response.status).toBe(200);
    expect(corsHeadersOf(response)).toEqual({});
    expect(response.headers.vary).toBe('Origin');
  });

  it('adds nothing to a request without Origin: every server-side client', async () => {
    const response = await h.postAs('post-client', TOKEN, { grant_type: 'client_credentials' });
    expect(response.status).toBe(200);
    expect(corsHeadersOf(response)).toEqual({});
    expect(response.headers.vary).toBeUndefined();
  });

  it('lets a script of any client of the realm read an error answered before the client is known', async () => {
    const response = await send({
      method: 'POST',
      path: TOKEN,
      headers: { ...FORM_HEADERS, origin: SPA },
      body: form({ grant_type: 'authorization_code', client_id: 'nobody', code: 'x' }),
    });
    expect(response.status).toBe(400);
    expect(response.json().error).toBe('invalid_client');
    expect(corsHeadersOf(response)).toEqual({
      'access-control-allow-origin': SPA,
      'access-control-expose-headers': 'WWW-Authenticate, DPoP-Nonce',
    });
    const stranger = await send({
      method: 'POST',
      path: TOKEN,
      headers: { ...FORM_HEADERS, origin: STRANGER },
      body: form({ grant_type: 'authorization_code', client_id: 'nobody', code: 'x' }),
    });
    expect(corsHeadersOf(stranger)).toEqual({});
  });

  it('answers revocation and userinfo for the spa to its origin only', async () => {
    const tokens = (await spaTokens()).json();
    const userinfo = (origin: string) =>
      send({ path: USERINFO, headers: { origin, authorization: `Bearer ${tokens.access_token}` } });
    expect(corsHeadersOf(await userinfo(SPA))['access-control-allow-origin']).toBe(SPA);
    expect(corsHeadersOf(await userinfo(APP))).toEqual({});
    // Without a token the client is unknown: any client's origin may read the challenge.
    const challenge = await send({ path: USERINFO, headers: { origin: APP } });
    expect(challenge.status).toBe(401);
    expect(corsHeadersOf(challenge)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-expose-headers': 'WWW-Authenticate, DPoP-Nonce',
    });

    const revoke = (origin: string) =>
      send({
        method: 'POST',
        path: REVOKE,
        headers: { ...FORM_HEADERS, origin },
        body: form({ client_id: 'spa', token: tokens.refresh_token as string }),
      });
    expect(corsHeadersOf(await revoke(APP))).toEqual({});
    const revoked = await revoke(SPA);
    expect(revoked.status).toBe(200);
    expect(corsHeadersOf(revoked)['access-control-allow-origin']).toBe(SPA);
  });

  it('serves discovery and the JWKS to the origins of the clients, and varies on Origin', async () => {
    for (const path of [DISCOVERY, JWKS]) {
      const fromSpa = await send({ path, headers: { origin: SPA } });
      expect(fromSpa.status).toBe(200);
      expect(corsHeadersOf(fromSpa)['access-control-allow-origin']).toBe(SPA);
      const fromStranger = await send({ path, headers: { origin: STRANGER } });
      expect(fromStranger.status).toBe(200);
      expect(corsHeadersOf(fromStranger)).toEqual({});
      // A shared cache keeps these answers: one fetched without Origin must not serve a browser.
      for (const response of [fromSpa, fromStranger, await send({ path })]) {
        expect(response.headers.vary).toBe('Origin');
      }
    }
  });

  it('never answers CORS at introspection', async () => {
    const token = await h.issueToken('post-client', { resource: 'https://api.example.com' });
    const response = await send({
      method: 'POST',
      path: INTROSPECT,
      headers: { ...FORM_HEADERS, origin: APP, ...(await h.credentialsOf('api')).headers },
      body: form({ token }),
    });
    expect(response.status).toBe(200);
    expect(corsHeadersOf(response)).toEqual({});
  });
});

describe('allowed_origins', () => {
  it('replaces the redirect URIs’ origins, and an empty list allows none', async () => {
    const realm = await h.provider.realm('test');
    expect([...(realm?.clients.get('spa')?.allowedOrigins ?? [])]).toEqual([SPA]);
    expect([...(realm?.clients.get('web-app')?.allowedOrigins ?? [])]).toEqual([APP]);
    expect([...(realm?.clients.get('native-client')?.allowedOrigins ?? [])]).toEqual([]);

    const closed = await createHarness({
      extraClients: [
        {
          client_id: 'closed',
          token_endpoint_auth_method: 'none',
          redirect_uris: ['https://closed.example.com/cb'],
          allowed_origins: [],
        },
      ],
    });
    const response = await closed.provider.handle({
      method: 'OPTIONS',
      path: TOKEN,
      query: '',
      headers: { origin: 'https://closed.example.com' },
    });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it.each([
    'https://spa.example.com/',
    'https://spa.example.com/app',
    'https://SPA.example.com',
    'https://spa.example.com:443',
    '*',
    'chrome-extension://abc',
  ])('refuses %s, which is not an origin as browsers send it', async (origin) => {
    await expect(
      createHarness({
        extraClients: [
          { client_id: 'x', token_endpoint_auth_method: 'none', allowed_origins: [origin] },
        ],
      }),
    ).rejects.toThrow(ConfigError);
  });
});

describe('CORS for clients outsiders describe', () => {
  /** A browser-based agent's origin, from the redirect URI of its metadata document. */
  const AGENT_APP = 'https://agent-app.example.net';
  const AGENT = 'https://agent.example.com/oauth/client.json';
  const REDIRECT = `${AGENT_APP}/callback`;
  let outside: Harness;
  beforeAll(async () => {
    outside = await createHarness({
      realm: {
        client_id_metadata_documents: { enabled: true, private_networks: true },
        registration: { open: true },
      },
      fetch: async (input) =>
        String(input) === AGENT
          ? Response.json({
              client_id: AGENT,
              redirect_uris: [REDIRECT],
              grant_types: ['authorization_code', 'refresh_token'],
              scope: 'openid profile',
            })
          : new Response(null, { status: 404 }),
    });
  });

  /** `clientId` signs alice in and exchanges its code from `origin`. */
  async function tokensOf(clientId: string, redirectUri: string, origin: string) {
    const b = browser(outside);
    const signedIn = await b.signIn({ client_id: clientId, redirect_uri: redirectUri });
    const code = new URL(signedIn.headers.location ?? '').searchParams.get('code') ?? '';
    return send(
      {
        method: 'POST',
        path: TOKEN,
        headers: { ...FORM_HEADERS, origin },
        body: form({
          grant_type: 'authorization_code',
          client_id: clientId,
          code,
          redirect_uri: redirectUri,
          code_verifier: CODE_VERIFIER,
        }),
      },
      outside,
    );
  }

  it("answers the preflight of a metadata-document agent's origin, as a configured client's", async () => {
    const answer = await preflight(TOKEN, AGENT_APP, 'POST', outside);
    expect(answer.headers['access-control-allow-origin']).toBe(AGENT_APP);
  });

  it("lets the agent's origin, and no other, read its tokens and its user's claims", async () => {
    const stranger = await tokensOf(AGENT, REDIRECT, STRANGER);
    expect(stranger.status).toBe(200);
    expect(corsHeadersOf(stranger)).toEqual({});
    const tokens = await tokensOf(AGENT, REDIRECT, AGENT_APP);
    expect(tokens.status).toBe(200);
    expect(corsHeadersOf(tokens)['access-control-allow-origin']).toBe(AGENT_APP);
    const userinfo = (origin: string) =>
      send(
        {
          path: USERINFO,
          headers: { origin, authorization: `Bearer ${tokens.json().access_token}` },
        },
        outside,
      );
    expect(corsHeadersOf(await userinfo(AGENT_APP))['access-control-allow-origin']).toBe(AGENT_APP);
    expect(corsHeadersOf(await userinfo(STRANGER))).toEqual({});
  });

  it("answers a registered browser client's origin, and lets it read its tokens", async () => {
    const origin = 'https://registered-spa.example.org';
    const registered = await send(
      {
        method: 'POST',
        path: endpointPath('register'),
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({
          redirect_uris: [`${origin}/cb`],
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          scope: 'openid profile',
        }),
      },
      outside,
    );
    expect(registered.status).toBe(201);
    const { client_id } = registered.json() as { client_id: string };
    const answer = await preflight(TOKEN, origin, 'POST', outside);
    expect(answer.headers['access-control-allow-origin']).toBe(origin);
    const tokens = await tokensOf(client_id, `${origin}/cb`, origin);
    expect(tokens.status, tokens.body).toBe(200);
    expect(corsHeadersOf(tokens)['access-control-allow-origin']).toBe(origin);
    expect(corsHeadersOf(await tokensOf(client_id, `${origin}/cb`, STRANGER))).toEqual({});
  });
});
