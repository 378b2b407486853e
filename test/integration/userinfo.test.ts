import type { Accounts, GatehouseRequest } from '@gatehouse-oidc/core';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_RESOURCE, TEST_USERS } from '../support/fixtures.js';
import {
  createHarness,
  endpointPath,
  type Harness,
  JSON_TYPE,
  NO_STORE,
  REVOKE,
  type TestResponse,
} from './harness.js';
import { DORA_PROFILE, mutableAccounts, postAsApp } from './user-grants.js';
import { userSessions } from './user-session.js';

const USERINFO = endpointPath('userinfo');

/** A user with a claim for every scope, and a few that no scope releases. */
const DORA = {
  ...DORA_PROFILE,
  email: 'dora@example.com',
  email_verified: true,
  address: { country: 'FR', locality: 'Paris' },
  phone_number: '+33 1 23 45 67 89',
  phone_number_verified: false,
  place_of_birth: { country: 'PE' },
  nationalities: ['PE', 'FR'],
  verified_claims: { verification: { trust_framework: 'eidas' }, claims: { given_name: 'Dora' } },
  password_hash: 'never released',
  sub: 'not-dora',
  iss: 'https://evil.example.com',
};

const accounts = mutableAccounts();
const withDora: Accounts = {
  findAccount: async (realm, sub) =>
    sub === 'dora' ? { sub, claims: DORA } : accounts.findAccount(realm, sub),
};

let h: Harness;
let users: Awaited<ReturnType<typeof userSessions>>;
beforeAll(async () => {
  h = await createHarness({ accounts: withDora });
  users = await userSessions(h);
});

function send(request: Partial<GatehouseRequest>): Promise<TestResponse> {
  return h.provider
    .handle({ method: 'GET', path: USERINFO, query: '', headers: {}, ...request })
    .then((response) => ({ ...response, json: () => JSON.parse(response.body ?? 'null') }));
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function expectClaims(response: TestResponse): Record<string, unknown> {
  expect(response.status).toBe(200);
  expect(response.headers).toEqual({ 'content-type': JSON_TYPE, ...NO_STORE });
  return response.json();
}

/** An RFC 6750 error: its status, the exact challenge, and the JSON body with the same code. */
function expectBearerError(
  response: TestResponse,
  status: number,
  error: string,
  description: string,
  scope?: string,
): void {
  const challenge =
    `Bearer realm="${h.issuer()}", error="${error}", error_description="${description}"` +
    (scope === undefined ? '' : `, scope="${scope}"`);
  expect({ status: response.status, headers: response.headers, body: response.json() }).toEqual({
    status,
    headers: { 'content-type': JSON_TYPE, ...NO_STORE, 'www-authenticate': challenge },
    body: { error, error_description: description },
  });
}

const INVALID_TOKEN = 'the access token is invalid, expired or revoked';

describe('the claims of the grant (docs/interface.md §2.7)', () => {
  it('GET: sub, the profile claims, and iss, aud, iat, nbf, exp of the access token', async () => {
    const issuedAt = h.nowSeconds();
    const token = await users.accessToken();
    h.clock.advance(7);
    const alice = TEST_USERS.alice ?? {};
    expect(expectClaims(await send({ headers: bearer(token) }))).toEqual({
      sub: 'alice',
      name: alice.name,
      given_name: alice.given_name,
      family_name: alice.family_name,
      preferred_username: alice.preferred_username,
      locale: alice.locale,
      updated_at: alice.updated_at,
      iss: h.issuer(),
      aud: 'web-app',
      iat: issuedAt,
      nbf: issuedAt,
      exp: issuedAt + 600,
    });
  });

  it('POST with an empty body answers the same', async () => {
    const token = await users.accessToken();
    const get = expectClaims(await send({ headers: bearer(token) }));
    const withoutBody = await send({ method: 'POST', headers: bearer(token) });
    const emptyForm = await h.post(USERINFO, {}, bearer(token));
    const emptyBytes = await send({
      method: 'POST',
      headers: bearer(token),
      body: new Uint8Array(),
    });
    for (const response of [withoutBody, emptyForm, emptyBytes]) {
      expect(expectClaims(response)).toEqual(get);
    }
  });

  it.each(['bearer', 'BEARER', 'BeArEr'])('takes the scheme in any case (%s)', async (scheme) => {
    const token = await users.accessToken();
    const response = await send({ headers: { authorization: `${scheme} ${token}` } });
    expect(expectClaims(response).sub).toBe('alice');
  });

  it.each([
    [['openid'], {}],
    [['openid', 'email'], { email: DORA.email, email_verified: true }],
    [['openid', 'address'], { address: DORA.address }],
    [['openid', 'phone'], { phone_number: DORA.phone_number, phone_number_verified: false }],
    [
      ['openid', 'id'],
      {
        birthdate: DORA.birthdate,
        place_of_birth: DORA.place_of_birth,
        nationalities: DORA.nationalities,
        verified_claims: DORA.verified_claims,
      },
    ],
    [
      ['openid', 'profile'],
      {
        name: DORA.name,
        given_name: DORA.given_name,
        family_name: DORA.family_name,
        middle_name: DORA.middle_name,
        nickname: DORA.nickname,
        preferred_username: DORA.preferred_username,
        profile: DORA.profile,
        picture: DORA.picture,
        website: DORA.website,
        gender: DORA.gender,
        birthdate: DORA.birthdate,
        zoneinfo: DORA.zoneinfo,
        locale: DORA.locale,
        updated_at: DORA.updated_at,
      },
    ],
  ])('scopes %j release exactly %j', async (scopes, released) => {
    const issuedAt = h.nowSeconds();
    const token = await users.accessToken({ sub: 'dora', scopes });
    expect(expectClaims(await send({ headers: bearer(token) }))).toEqual({
      ...released,
      sub: 'dora',
      iss: h.issuer(),
      aud: 'web-app',
      iat: issuedAt,
      nbf: issuedAt,
      exp: issuedAt + 600,
    });
  });

  it('refuses a token meant for a Protected Resource (RFC 8707: it belongs to the resource)', async () => {
    const token = await users.accessToken({
      scopes: ['openid', 'api:read'],
      resource: API_RESOURCE,
    });
    expect(decodeJwt(token).aud).toBe(API_RESOURCE);
    expectBearerError(
      await send({ headers: bearer(token) }),
      401,
      'invalid_token',
      'the access token is for a Protected Resource, not for userinfo',
    );
  });

  it('HEAD answers the headers of GET without a body', async () => {
    const token = await users.accessToken();
    const response = await send({ method: 'HEAD', headers: bearer(token) });
    expect({ status: response.status, body: response.body }).toEqual({
      status: 200,
      body: undefined,
    });
  });

  it('answers the CORS preflight of the origins of the realm’s clients (test/integration/cors.test.ts)', async () => {
    const response = await send({
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect({ status: response.status, headers: response.headers, body: response.body }).toEqual({
      status: 204,
      headers: {
        'access-control-allow-origin': 'https://app.example.com',
        'access-control-allow-methods': 'GET, HEAD, POST',
        'access-control-allow-headers': 'Authorization, Content-Type, DPoP',
        'access-control-max-age': '600',
        vary: 'Origin',
      },
      body: undefined,
    });
  });

  it.each([
    ['opaque', { access_token_format: 'opaque' as const }],
    ['no-store', { access_token_retention_policy: 'no-store' as const }],
  ])('works with %s access tokens', async (_, realm) => {
    const other = await createHarness({ realm });
    const token = await (await userSessions(other)).accessToken();
    const response = await other.provider.handle({
      method: 'GET',
      path: USERINFO,
      query: '',
      headers: bearer(token),
    });
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body ?? '{}').name).toBe(TEST_USERS.alice?.name);
  });
});

describe('no credentials (RFC 6750 §3.1)', () => {
  it.each([
    ['no Authorization header', {}],
    ['another scheme', { authorization: 'Basic d2ViLWFwcDpzZWNyZXQ=' }],
  ])('%s: 401 with the bare Bearer and DPoP challenges and no error code', async (_, headers) => {
    const challenges =
      `Bearer realm="${h.issuer()}", ` +
      `DPoP realm="${h.issuer()}", algs="ES256 PS256 EdDSA RS256 ES384 PS384"`;
    for (const method of ['GET', 'POST']) {
      const response = await send({ method, headers });
      expect({ status: response.status, headers: response.headers, body: response.body }).toEqual({
        status: 401,
        headers: { ...NO_STORE, 'www-authenticate': challenges },
        body: undefined,
      });
    }
  });
});

describe('tokens never in the URL or the body (RFC 9700 §4.3.2, RFC 6750 §2.3)', () => {
  it('refuses access_token in the query, even beside a valid header', async () => {
    const token = await users.accessToken();
    for (const headers of [{}, bearer(token)]) {
      const response = await send({ headers, query: `access_token=${token}` });
      expectBearerError(
        response,
        400,
        'invalid_request',
        'the access token must be sent in the Authorization header',
      );
      expect(JSON.stringify(response)).not.toContain(token);
    }
  });

  it('refuses access_token in a POST body', async () => {
    const token = await users.accessToken();
    const response = await h.post(USERINFO, { access_token: token });
    expectBearerError(response, 400, 'invalid_request', 'the request body must be empty');
    expect(JSON.stringify(response)).not.toContain(token);
  });

  it('refuses any other POST body, parsed or not', async () => {
    const token = await users.accessToken();
    expectBearerError(
      await h.post(USERINFO, { claims: 'x' }, bearer(token)),
      400,
      'invalid_request',
      'the request body must be empty',
    );
    expectBearerError(
      await send({ method: 'POST', headers: bearer(token), form: [['a', 'b']] }),
      400,
      'invalid_request',
      'the request body must be empty',
    );
  });

  it('answers a malformed query with invalid_request, not a 500', async () => {
    const token = await users.accessToken();
    const response = await send({ headers: bearer(token), query: 'a=%zz' });
    expectBearerError(response, 400, 'invalid_request', 'malformed percent-encoding');
  });
});

describe('invalid tokens', () => {
  it('a malformed Bearer header is invalid_request', async () => {
    expectBearerError(
      await send({ headers: { authorization: 'Bearer a b' } }),
      400,
      'invalid_request',
      'the Authorization header is not a valid Bearer',
    );
  });

  it('an unknown token is invalid_token, and the token is not echoed', async () => {
    const token = 'unknown-token-0123456789';
    const response = await send({ headers: bearer(token) });
    expectBearerError(response, 401, 'invalid_token', INVALID_TOKEN);
    expect(JSON.stringify(response)).not.toContain(token);
  });

  it('an expired token is invalid_token', async () => {
    const token = await users.accessToken();
    h.clock.advance(600);
    expectBearerError(await send({ headers: bearer(token) }), 401, 'invalid_token', INVALID_TOKEN);
  });

  it('a revoked token is invalid_token', async () => {
    const token = await users.accessToken();
    expect((await send({ headers: bearer(token) })).status).toBe(200);
    expect((await postAsApp(h, 'web-app', REVOKE, { token })).status).toBe(200);
    expectBearerError(await send({ headers: bearer(token) }), 401, 'invalid_token', INVALID_TOKEN);
  });

  it('a forged token (same claims, another key) is invalid_token', async () => {
    const genuine = await users.accessToken();
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT(decodeJwt(genuine))
      .setProtectedHeader({ ...decodeProtectedHeader(genuine), alg: 'ES256' })
      .sign(privateKey);
    expectBearerError(await send({ headers: bearer(forged) }), 401, 'invalid_token', INVALID_TOKEN);
  });

  it('an ID token is not an access token', async () => {
    const idToken = await users.idToken();
    expectBearerError(
      await send({ headers: bearer(idToken) }),
      401,
      'invalid_token',
      INVALID_TOKEN,
    );
  });

  it('the token of a user who no longer exists is invalid_token', async () => {
    const token = await users.accessToken({ sub: 'bob' });
    expect((await send({ headers: bearer(token) })).status).toBe(200);
    accounts.delete('bob');
    expectBearerError(
      await send({ headers: bearer(token) }),
      401,
      'invalid_token',
      'the user of the access token no longer exists',
    );
  });
});

describe('insufficient scope', () => {
  it('a user token without openid is 403 insufficient_scope, naming openid', async () => {
    const token = await users.accessToken({ scopes: ['profile', 'api:read'] });
    expectBearerError(
      await send({ headers: bearer(token) }),
      403,
      'insufficient_scope',
      'the access token was not granted the openid scope',
      'openid',
    );
  });

  it('a client-credentials token has no openid and no user', async () => {
    const token = await h.issueToken('post-client');
    expectBearerError(
      await send({ headers: bearer(token) }),
      403,
      'insufficient_scope',
      'the access token was not granted the openid scope',
      'openid',
    );
  });
});
