import { beforeAll, describe, expect, it } from 'vitest';
import { API_RESOURCE, FORM_HEADERS } from '../support/fixtures.js';
import {
  basicAuthorization,
  createHarness,
  expectOAuthError,
  type Harness,
  NO_STORE,
  REVOKE,
  type TestResponse,
} from './harness.js';

const forApi = { resource: API_RESOURCE, scope: 'api:read' } as const;

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});

function expectRevoked(response: TestResponse): void {
  expect({ status: response.status, headers: response.headers, body: response.body }).toEqual({
    status: 200,
    headers: NO_STORE,
    body: undefined,
  });
}

const isActive = async (harness: Harness, clientId: string, token: string) =>
  (await harness.introspect(clientId, token)).json().active;

describe('revocation', () => {
  it.each([
    ['a JWT', undefined],
    ['an opaque', 'opaque' as const],
  ])(
    "revoking one's own %s access token → 200, then introspection says inactive",
    async (_, format) => {
      const harness = format ? await createHarness({ realm: { access_token_format: format } }) : h;
      const token = await harness.issueToken('post-client', forApi);
      expect(await isActive(harness, 'api', token)).toBe(true);
      expectRevoked(await harness.postAs('post-client', REVOKE, { token }));
      expect(await isActive(harness, 'api', token)).toBe(false);
    },
  );

  it.each([
    ['another client', 'basic-client'],
    ["the resource's own client", 'api'],
  ])("%s revoking someone else's token → 200 and the token stays active", async (_, clientId) => {
    const token = await h.issueToken('post-client', forApi);
    expectRevoked(await h.postAs(clientId, REVOKE, { token }));
    expect(await isActive(h, 'api', token)).toBe(true);
  });

  it.each([
    ['an unknown token', 'unknown-token'],
    ['a JWT-looking string', 'a.b.c'],
  ])('%s → 200', async (_, token) => {
    expectRevoked(await h.postAs('post-client', REVOKE, { token }));
  });

  it('revoking twice → 200 both times', async () => {
    const token = await h.issueToken('basic-client');
    expectRevoked(
      await h.postAs('basic-client', REVOKE, { token, token_type_hint: 'access_token' }),
    );
    expectRevoked(
      await h.postAs('basic-client', REVOKE, { token, token_type_hint: 'refresh_token' }),
    );
  });

  it('under no-store, revoking an access token → 200 and it stays active until it expires', async () => {
    const noStore = await createHarness({ realm: { access_token_retention_policy: 'no-store' } });
    const token = await noStore.issueToken('post-client', forApi);
    expectRevoked(await noStore.postAs('post-client', REVOKE, { token }));
    expect(await isActive(noStore, 'api', token)).toBe(true);
    noStore.clock.advance(600);
    expect(await isActive(noStore, 'api', token)).toBe(false);
  });
});

describe('revocation errors', () => {
  it.each([
    ['an unknown client', { client_id: 'nobody', client_secret: 'whatever-secret-value' }, {}, 400],
    [
      'a wrong client_secret',
      { client_id: 'post-client', client_secret: 'wrong-secret-value' },
      {},
      400,
    ],
    [
      'a wrong Basic secret',
      {},
      { authorization: basicAuthorization('basic-client', 'wrong') },
      401,
    ],
  ])(
    '%s → invalid_client, and the token is not revoked',
    async (_, credentials, headers, status) => {
      const token = await h.issueToken('post-client');
      expectOAuthError(
        await h.post(REVOKE, { token, ...credentials }, headers),
        status,
        'invalid_client',
      );
      expect(await isActive(h, 'post-client', token)).toBe(true);
    },
  );

  it('a realm that does not exist → 404', async () => {
    const response = await h.post('/oauth/nowhere/revoke', {
      token: 'x',
      client_id: 'post-client',
    });
    expect(response.status).toBe(404);
  });

  it.each([['missing token', {}]])('%s → invalid_request', async (_, fields) => {
    expectOAuthError(await h.postAs('post-client', REVOKE, fields), 400, 'invalid_request');
  });

  it('a repeated token parameter → invalid_request, and neither token is revoked', async () => {
    const first = await h.issueToken('post-client');
    const second = await h.issueToken('post-client');
    const credentials = await h.credentialsOf('post-client');
    const body = `${new URLSearchParams(credentials.fields)}&token=${first}&token=${second}`;
    const response = await h.provider.handle({
      method: 'POST',
      path: REVOKE,
      query: '',
      headers: FORM_HEADERS,
      body,
    });
    expect([response.status, JSON.parse(response.body ?? '{}').error]).toEqual([
      400,
      'invalid_request',
    ]);
    expect(await isActive(h, 'post-client', first)).toBe(true);
    expect(await isActive(h, 'post-client', second)).toBe(true);
  });
});
