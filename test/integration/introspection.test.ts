import type { RecordOptions } from '@gatehouse-oidc/core';
import { base64url, decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_RESOURCE } from '../support/fixtures.js';
import {
  createHarness,
  expectOAuthError,
  type Harness,
  INTROSPECT,
  JSON_TYPE,
  NO_STORE,
  REVOKE,
  RecordingStore,
  type TestResponse,
} from './harness.js';

const INACTIVE = '{"active":false}';
const forApi = { resource: API_RESOURCE, scope: 'api:read api:write' } as const;

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});

function expectInactive(response: TestResponse, status = 400): void {
  expect({ status: response.status, body: response.body }).toEqual({ status, body: INACTIVE });
  expect(response.headers).toEqual({ 'content-type': JSON_TYPE, ...NO_STORE });
}

function expectActive(response: TestResponse): Record<string, unknown> {
  expect(response.status).toBe(200);
  expect(response.headers).toEqual({ 'content-type': JSON_TYPE, ...NO_STORE });
  const body = response.json();
  expect(body.active).toBe(true);
  return body;
}

/** Every field of docs/interface.md §2.6 for a client-credentials token of post-client. */
function expectedActiveForm(harness: Harness, token: string, issuedAt: number, resource?: string) {
  return {
    active: true,
    iss: harness.issuer(),
    sub: 'post-client',
    ...(resource ? { resource } : {}),
    aud: resource ?? 'post-client',
    nbf: issuedAt,
    iat: issuedAt,
    exp: issuedAt + 600,
    scope: resource ? 'api:read api:write' : 'api:read api:write other:read',
    client_id: 'post-client',
    token_type: 'Bearer',
    jti: decodeJwt(token).jti,
  };
}

describe('who may see a token', () => {
  it("the resource's own client sees the active form with every field of docs/interface.md §2.6", async () => {
    const issuedAt = h.nowSeconds();
    const token = await h.issueToken('post-client', forApi);
    h.clock.advance(5);
    const body = expectActive(await h.introspect('api', token));
    expect(body).toEqual(expectedActiveForm(h, token, issuedAt, API_RESOURCE));
  });

  it.each([
    ["another resource's client", 'other-api'],
    ['the issuing client, for a token meant for a resource', 'post-client'],
    ['an unrelated client', 'basic-client'],
  ])('%s gets the inactive form', async (_, clientId) => {
    const token = await h.issueToken('post-client', forApi);
    expectInactive(await h.introspect(clientId, token));
  });

  it('a token without a resource is visible to its own client only', async () => {
    const issuedAt = h.nowSeconds();
    const token = await h.issueToken('post-client');
    expect(expectActive(await h.introspect('post-client', token))).toEqual(
      expectedActiveForm(h, token, issuedAt),
    );
    for (const clientId of ['api', 'other-api', 'basic-client'])
      expectInactive(await h.introspect(clientId, token));
  });

  it('token_type_hint is only a hint: refresh_token still finds an access token', async () => {
    const token = await h.issueToken('post-client', forApi);
    expectActive(await h.introspect('api', token, { token_type_hint: 'refresh_token' }));
    expectActive(await h.introspect('api', token, { token_type_hint: 'access_token' }));
    expectActive(await h.introspect('api', token, { token_type_hint: 'id_token' }));
  });
});

describe('tokens that are not live are inactive', () => {
  it('expired: active one second before exp, inactive at exp', async () => {
    const token = await h.issueToken('post-client', forApi);
    h.clock.advance(599);
    expectActive(await h.introspect('api', token));
    h.clock.advance(1);
    expectInactive(await h.introspect('api', token));
  });

  it.each([
    [
      'an unknown opaque string',
      () => base64url.encode(crypto.getRandomValues(new Uint8Array(32))),
    ],
    ['something that looks like a JWT but is not', () => 'a.b.c'],
  ])('%s', async (_, token) => {
    expectInactive(await h.introspect('api', token()));
  });

  it('a tampered JWT (payload changed, signature kept)', async () => {
    const token = await h.issueToken('post-client', forApi);
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(new TextDecoder().decode(base64url.decode(payload ?? '')));
    const widened = base64url.encode(
      JSON.stringify({ ...claims, scope: 'api:read api:write other:read' }),
    );
    expectInactive(await h.introspect('api', `${header}.${widened}.${signature}`));
  });

  it("a JWT forged with another key under the realm key's kid", async () => {
    const genuine = await h.issueToken('post-client', forApi);
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(decodeJwt(genuine))
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: decodeProtectedHeader(genuine).kid })
      .sign(privateKey);
    expectInactive(await h.introspect('api', forged));
  });

  it('a revoked token', async () => {
    const token = await h.issueToken('post-client', forApi);
    expect((await h.postAs('post-client', REVOKE, { token })).status).toBe(200);
    expectInactive(await h.introspect('api', token));
  });

  it('a token from another deployment with the same issuer, realm and resource', async () => {
    const second = await createHarness({ realm: { name: 'test' } });
    const foreign = await second.issueToken('post-client', forApi);
    expectInactive(await h.introspect('api', foreign));
  });

  it('inactive is 200 when the realm sets introspection_inactive_status 200', async () => {
    const rfc7662 = await createHarness({ realm: { introspection_inactive_status: 200 } });
    const token = await rfc7662.issueToken('post-client', forApi);
    expectInactive(await rfc7662.introspect('other-api', token), 200);
    expectActive(await rfc7662.introspect('api', token));
  });
});

describe('malformed introspection requests', () => {
  it.each([
    ['missing token', {}],
    ['empty token', { token: '' }],
  ])('%s → invalid_request', async (_, fields) => {
    expectOAuthError(await h.postAs('api', INTROSPECT, fields), 400, 'invalid_request');
  });

  it('failed client authentication → invalid_client, with no-store headers', async () => {
    const response = await h.post(INTROSPECT, {
      token: 'x',
      client_id: 'other-api',
      client_secret: 'wrong-secret',
    });
    expectOAuthError(response, 400, 'invalid_client');
  });

  it('the token in the query string → invalid_request', async () => {
    const credentials = await h.credentialsOf('api');
    const response = await h.provider.handle({
      method: 'POST',
      path: INTROSPECT,
      query: 'token=abc',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...credentials.headers },
      body: '',
    });
    expect([response.status, JSON.parse(response.body ?? '{}').error]).toEqual([
      400,
      'invalid_request',
    ]);
  });
});

describe('token formats and retention policies', () => {
  it('opaque tokens are introspected from their record', async () => {
    const opaque = await createHarness({ realm: { access_token_format: 'opaque' } });
    const issuedAt = opaque.nowSeconds();
    const token = await opaque.issueToken('post-client', forApi);
    const { jti: _, ...expected } = expectedActiveForm(opaque, 'x.e30.x', issuedAt, API_RESOURCE);
    expect(expectActive(await opaque.introspect('api', token))).toEqual({
      ...expected,
      jti: expect.any(String),
    });
    expectInactive(await opaque.introspect('other-api', token));
    opaque.clock.advance(600);
    expectInactive(await opaque.introspect('api', token));
  });

  it("the record's own exp decides, even when the store keeps records longer", async () => {
    // Stores with coarse expiry (Redis, SQL sweeps) may return a record shortly after its TTL.
    class LaggingStore extends RecordingStore {
      override set<T>(namespace: string, id: string, value: T, options?: RecordOptions) {
        return super.set(namespace, id, value, {
          ...options,
          ttlSeconds: (options?.ttlSeconds ?? 0) + 5,
        });
      }
    }
    const lagging = await createHarness({
      realm: { access_token_format: 'opaque' },
      store: (now) => new LaggingStore({ now }),
    });
    const token = await lagging.issueToken('post-client', forApi);
    lagging.clock.advance(600);
    expectInactive(await lagging.introspect('api', token));
  });

  it('under no-store a JWT is introspected from its claims alone', async () => {
    const noStore = await createHarness({ realm: { access_token_retention_policy: 'no-store' } });
    const issuedAt = noStore.nowSeconds();
    const token = await noStore.issueToken('post-client', forApi);
    expect(noStore.store.writesTo('access_token')).toEqual([]);
    expect(expectActive(await noStore.introspect('api', token))).toEqual(
      expectedActiveForm(noStore, token, issuedAt, API_RESOURCE),
    );
    expectInactive(await noStore.introspect('other-api', token));
    const ownToken = await noStore.issueToken('post-client');
    expect(
      expectActive(await noStore.introspect('post-client', ownToken)).resource,
    ).toBeUndefined();
    noStore.clock.advance(600);
    expectInactive(await noStore.introspect('api', token));
  });
});
