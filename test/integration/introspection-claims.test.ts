import type { Accounts } from '@gatehouse-oidc/core';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_RESOURCE, TEST_USERS } from '../support/fixtures.js';
import { createHarness, type Harness, INTROSPECT, JSON_TYPE, NO_STORE } from './harness.js';
import { DORA_PROFILE, mutableAccounts, postAsApp } from './user-grants.js';
import { userSessions } from './user-session.js';

/** Every claim of the profile scope, plus claims introspection must not release. */
const FULL_PROFILE = {
  ...DORA_PROFILE,
  email: 'dora@example.com',
  address: { country: 'FR' },
};

const accounts = mutableAccounts();
const testAccounts: Accounts = {
  async findAccount(realm, sub) {
    if (sub === 'dora') return { sub, claims: FULL_PROFILE };
    // A machine client's id that a user store happens to know: its tokens still get no claims.
    if (sub === 'post-client') return { sub, claims: FULL_PROFILE };
    return accounts.findAccount(realm, sub);
  },
};

let h: Harness;
let users: Awaited<ReturnType<typeof userSessions>>;
beforeAll(async () => {
  h = await createHarness({ accounts: testAccounts });
  users = await userSessions(h);
});

/** web-app introspects its own token (issued without a resource). */
async function introspectOwn(harness: Harness, token: string) {
  const response = await postAsApp(harness, 'web-app', INTROSPECT, { token });
  expect(response.headers).toEqual({ 'content-type': JSON_TYPE, ...NO_STORE });
  return response;
}

/** The token fields of docs/interface.md §2.6 for a token of alice's or dora's grant to web-app. */
function tokenFields(harness: Harness, token: string, sub: string, scope: string) {
  const { iat, jti } = decodeJwt(token);
  return {
    active: true,
    iss: harness.issuer(),
    sub,
    aud: 'web-app',
    nbf: iat,
    iat,
    exp: (iat ?? 0) + 600,
    scope,
    client_id: 'web-app',
    token_type: 'Bearer',
    jti,
  };
}

describe('profile claims in introspection (docs/interface.md §2.6)', () => {
  it('adds every profile claim of docs/interface.md §2.6 the account has, and no other claim', async () => {
    const token = await users.accessToken({ sub: 'dora', scopes: ['openid', 'profile', 'email'] });
    const response = await introspectOwn(h, token);
    expect(response.status).toBe(200);
    const { website, email, address, ...profile } = FULL_PROFILE;
    expect(response.json()).toEqual({
      ...tokenFields(h, token, 'dora', 'openid profile email'),
      ...profile,
    });
  });

  it('sends birthdate, gender and middle_name as null when absent, omits the others', async () => {
    const token = await users.accessToken();
    const alice = TEST_USERS.alice ?? {};
    expect((await introspectOwn(h, token)).json()).toEqual({
      ...tokenFields(h, token, 'alice', 'openid profile'),
      updated_at: alice.updated_at,
      locale: alice.locale,
      birthdate: null,
      gender: null,
      preferred_username: alice.preferred_username,
      middle_name: null,
      given_name: alice.given_name,
      family_name: alice.family_name,
      name: alice.name,
    });
  });

  it('adds nothing to a token without the profile scope', async () => {
    const token = await users.accessToken({ sub: 'dora', scopes: ['openid', 'email'] });
    expect((await introspectOwn(h, token)).json()).toEqual(
      tokenFields(h, token, 'dora', 'openid email'),
    );
  });

  it("shows the claims to the resource's client for a token meant for it", async () => {
    const token = await users.accessToken({
      sub: 'dora',
      scopes: ['openid', 'profile', 'api:read'],
      resource: API_RESOURCE,
    });
    const response = await h.introspect('api', token);
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({
      active: true,
      resource: API_RESOURCE,
      aud: API_RESOURCE,
      name: FULL_PROFILE.name,
      birthdate: FULL_PROFILE.birthdate,
    });
  });

  it('never adds claims to a client-credentials token', async () => {
    const token = await h.issueToken('post-client');
    const response = await h.introspect('post-client', token);
    expect(response.status).toBe(200);
    expect(Object.keys(response.json()).sort()).toEqual(
      [
        'active',
        'iss',
        'sub',
        'aud',
        'nbf',
        'iat',
        'exp',
        'scope',
        'client_id',
        'token_type',
        'jti',
      ].sort(),
    );
  });

  it('answers the inactive form once the user no longer exists', async () => {
    const token = await users.accessToken({ sub: 'bob' });
    expect((await introspectOwn(h, token)).status).toBe(200);
    accounts.delete('bob');
    const response = await introspectOwn(h, token);
    expect({ status: response.status, body: response.body }).toEqual({
      status: 400,
      body: '{"active":false}',
    });
  });

  it.each(['store', 'no-store'] as const)(
    'answers inactive under %s for a token without profile once its user no longer exists, as userinfo does',
    async (policy) => {
      const forgetful = mutableAccounts();
      const other = await createHarness({
        accounts: forgetful,
        realm: { access_token_retention_policy: policy },
      });
      const token = await (await userSessions(other)).accessToken({
        sub: 'bob',
        scopes: ['openid', 'email'],
      });
      expect((await introspectOwn(other, token)).json()).toMatchObject({ active: true });
      forgetful.delete('bob');
      expect((await introspectOwn(other, token)).body).toBe('{"active":false}');
      // A client-credentials token has no user to look up: no user store knows post-client.
      const machine = await other.issueToken('post-client');
      expect((await other.introspect('post-client', machine)).json()).toMatchObject({
        active: true,
      });
    },
  );

  it('works under no-store, where the token carries no grant id', async () => {
    const other = await createHarness({
      accounts: testAccounts,
      realm: { access_token_retention_policy: 'no-store' },
    });
    const token = await (await userSessions(other)).accessToken({ sub: 'dora' });
    const response = await introspectOwn(other, token);
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ active: true, sub: 'dora', name: FULL_PROFILE.name });
  });
});
