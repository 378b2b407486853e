import type { SigningAlgorithm } from '@gatehouse-oidc/core';
import {
  base64url,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  type JWK,
  jwtVerify,
} from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_RESOURCE } from '../support/fixtures.js';
import {
  createHarness,
  endpointPath,
  expectOAuthError,
  type Harness,
  JSON_TYPE,
  NO_STORE,
  TOKEN,
} from './harness.js';

const CLIENT_CREDENTIALS = { grant_type: 'client_credentials' } as const;
const ALL_SCOPES = 'api:read api:write other:read';

/** A client assigned user scopes too, with a default that mixes both kinds. */
const MIXED_CLIENT = {
  client_id: 'mixed-client',
  client_secret: 'mixed-secret-0123456789abcdef',
  token_endpoint_auth_method: 'client_secret_post' as const,
  grant_types: ['client_credentials' as const],
  scope: 'openid profile api:read api:write',
  default_scope: 'openid api:read',
};

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ extraClients: [MIXED_CLIENT] });
});

const asMixed = (fields: Record<string, string> = {}) =>
  h.post(TOKEN, {
    ...CLIENT_CREDENTIALS,
    client_id: MIXED_CLIENT.client_id,
    client_secret: MIXED_CLIENT.client_secret,
    ...fields,
  });

async function realmJwks(harness: Harness): Promise<JWK[]> {
  const response = await harness.get(endpointPath('jwks'));
  expect(response.status).toBe(200);
  return response.json().keys as JWK[];
}

describe('grant_type', () => {
  it('missing → invalid_request', async () => {
    expectOAuthError(await h.postAs('post-client', TOKEN, {}), 400, 'invalid_request');
  });

  it.each([
    'password',
    'urn:ietf:params:oauth:grant-type:saml2-bearer',
    'CLIENT_CREDENTIALS',
    '__proto__',
  ])('%s → unsupported_grant_type', async (grant_type) => {
    expectOAuthError(
      await h.postAs('post-client', TOKEN, { grant_type }),
      400,
      'unsupported_grant_type',
    );
  });

  it.each([
    ['a client without client_credentials in grant_types', 'api'],
    ['a native (public) client', 'native-client'],
  ])('%s → unauthorized_client', async (_, clientId) => {
    expectOAuthError(
      await h.postAs(clientId, TOKEN, CLIENT_CREDENTIALS),
      400,
      'unauthorized_client',
    );
  });
});

describe('client credentials response', () => {
  it('is exactly access_token, token_type, expires_in and scope, never cached', async () => {
    const response = await h.postAs('post-client', TOKEN, CLIENT_CREDENTIALS);
    expect(response.status).toBe(200);
    expect(response.headers).toEqual({ 'content-type': JSON_TYPE, ...NO_STORE });
    expect(response.json()).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 600,
      scope: ALL_SCOPES,
    });
  });

  it('expires_in follows the realm access_token_ttl', async () => {
    const short = await createHarness({ realm: { access_token_ttl: 42 } });
    const response = await short.postAs('post-client', TOKEN, CLIENT_CREDENTIALS);
    expect(response.json().expires_in).toBe(42);
    expect(decodeJwt(response.json().access_token as string).exp).toBe(short.nowSeconds() + 42);
  });

  it('resource becomes the audience; without it the audience is the client', async () => {
    const withResource = await h.issueToken('post-client', {
      resource: API_RESOURCE,
      scope: 'api:read',
    });
    expect(decodeJwt(withResource).aud).toBe(API_RESOURCE);
    expect(decodeJwt(await h.issueToken('post-client')).aud).toBe('post-client');
  });

  it('an unknown resource → invalid_target', async () => {
    const response = await h.postAs('post-client', TOKEN, {
      ...CLIENT_CREDENTIALS,
      resource: 'https://unknown.example.com',
    });
    expectOAuthError(response, 400, 'invalid_target');
  });
});

describe('scope', () => {
  it.each([
    ['not assigned to the client', 'email'],
    ['unknown to the realm', 'admin'],
    ['partly unassigned', 'api:read openid'],
    ['malformed', 'api:read  api:write'],
  ])('%s → invalid_scope', async (_, scope) => {
    expectOAuthError(
      await h.postAs('post-client', TOKEN, { ...CLIENT_CREDENTIALS, scope }),
      400,
      'invalid_scope',
    );
  });

  it.each(['openid', 'profile', 'api:read profile'])(
    'user scope in "%s" → invalid_scope even when assigned',
    async (scope) => {
      expectOAuthError(await asMixed({ scope }), 400, 'invalid_scope');
    },
  );

  it("omitted → the client's default scopes minus user scopes", async () => {
    const response = await asMixed();
    expect(response.status).toBe(200);
    expect(response.json().scope).toBe('api:read');
    expect(decodeJwt(response.json().access_token as string).scope).toBe('api:read');
  });

  it('a subset is granted as asked, duplicates collapsed', async () => {
    const response = await h.postAs('post-client', TOKEN, {
      ...CLIENT_CREDENTIALS,
      scope: 'api:write api:read api:write',
    });
    expect(response.json().scope).toBe('api:write api:read');
  });

  it('scopes that do not cover the resource → invalid_scope', async () => {
    const insufficient = await h.postAs('post-client', TOKEN, {
      ...CLIENT_CREDENTIALS,
      resource: API_RESOURCE,
      scope: 'other:read',
    });
    expectOAuthError(insufficient, 400, 'invalid_scope');
    const sufficient = await h.postAs('post-client', TOKEN, {
      ...CLIENT_CREDENTIALS,
      resource: API_RESOURCE,
      scope: 'api:write',
    });
    expect(sufficient.status).toBe(200);
  });
});

describe('JWT access tokens (RFC 9068)', () => {
  it.each<[string, SigningAlgorithm | undefined, string]>([
    ['by default', undefined, 'ES256'],
    ['EdDSA', 'EdDSA', 'EdDSA'],
    ['RS256', 'RS256', 'RS256'],
    ['PS256', 'PS256', 'PS256'],
  ])('signed %s, verifiable against the realm JWKS', async (_, signing_alg, alg) => {
    const harness = signing_alg ? await createHarness({ realm: { signing_alg } }) : h;
    const token = await harness.issueToken('post-client', {
      resource: API_RESOURCE,
      scope: 'api:read',
    });
    const header = decodeProtectedHeader(token);
    expect(header).toEqual({ alg, typ: 'at+jwt', kid: expect.any(String) });
    const jwks = await realmJwks(harness);
    expect(jwks.map((key) => key.kid)).toContain(header.kid);

    const { payload } = await jwtVerify(token, createLocalJWKSet({ keys: jwks }), {
      algorithms: [alg],
      typ: 'at+jwt',
      issuer: harness.issuer(),
      audience: API_RESOURCE,
      currentDate: new Date(harness.clock.now()),
    });
    const now = harness.nowSeconds();
    expect(payload).toEqual({
      iss: harness.issuer(),
      sub: 'post-client',
      aud: API_RESOURCE,
      iat: now,
      nbf: now,
      exp: now + 600,
      jti: expect.stringMatching(/^[\w-]{22,}$/),
      client_id: 'post-client',
      scope: 'api:read',
    });
  });

  it('every token has its own jti', async () => {
    const jtis = await Promise.all([1, 2, 3].map(async () => decodeJwt(await h.issueToken()).jti));
    expect(new Set(jtis).size).toBe(3);
  });
});

describe('opaque access tokens', () => {
  it('are at least 256 random bits, base64url, and never repeat', async () => {
    const opaque = await createHarness({ realm: { access_token_format: 'opaque' } });
    const tokens = await Promise.all([1, 2, 3].map(() => opaque.issueToken()));
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(base64url.decode(token).length).toBeGreaterThanOrEqual(32);
    }
    expect(new Set(tokens).size).toBe(3);
  });
});

describe('access_token_retention_policy', () => {
  it('store: one record per token, and the store never holds an opaque token itself', async () => {
    const harness = await createHarness({ realm: { access_token_format: 'opaque' } });
    const tokens = [await harness.issueToken(), await harness.issueToken('basic-client')];
    const records = harness.store.writesTo('access_token');
    expect(records).toHaveLength(2);
    expect(new Set(records.map((write) => write.id)).size).toBe(2);
    for (const write of records) {
      expect(write.options?.ttlSeconds).toBe(600);
      const stored = JSON.stringify(await harness.store.get(write.namespace, write.id));
      for (const token of tokens) expect(`${write.id} ${stored}`).not.toContain(token);
    }
  });

  it('store: a JWT access token gets one record', async () => {
    const harness = await createHarness();
    await harness.issueToken();
    expect(harness.store.writesTo('access_token')).toHaveLength(1);
  });

  it('no-store: issuing writes nothing but the realm signing key', async () => {
    const harness = await createHarness({ realm: { access_token_retention_policy: 'no-store' } });
    await harness.issueToken();
    await harness.issueToken('basic-client', { resource: API_RESOURCE, scope: 'api:read' });
    expect(harness.store.writes.map((write) => write.namespace)).toEqual(['signing_key']);
  });
});
