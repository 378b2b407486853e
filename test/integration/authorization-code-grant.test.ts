import type { RecordOptions } from '@gatehouse-oidc/core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  API_RESOURCE,
  clientKeyPair,
  OTHER_RESOURCE,
  SECRETS,
  testRealm,
  WEB_REDIRECT_URI,
} from '../support/fixtures.js';
import { leftHalfSha256 } from '../support/token-hash.js';
import {
  createHarness,
  endpointPath,
  expectOAuthError,
  type Harness,
  RecordingStore,
  TOKEN,
} from './harness.js';
import {
  CODE_CHALLENGE,
  CODE_VERIFIER,
  exchange,
  exchangeAs,
  expectTokens,
  isActive,
  NONCE,
  postAsApp,
  refresh,
  SECOND_APP,
  type UserGrants,
  userGrants,
  verifiedIdToken,
} from './user-grants.js';

let h: Harness;
let grants: UserGrants;
beforeAll(async () => {
  h = await createHarness({ extraClients: [SECOND_APP] });
  grants = await userGrants(h);
});

describe('authorization_code: success', () => {
  it('answers docs/interface.md §2.4 with scope, a refresh token and a bound ID token', async () => {
    const grant = grants.grant({ scopes: ['openid', 'profile'] });
    const code = await grants.code(grant);
    const body = expectTokens(await exchange(h, code));
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 600,
      scope: 'openid profile',
      refresh_token: expect.any(String),
      id_token: expect.any(String),
    });

    const claims = await verifiedIdToken(h, body.id_token);
    expect(claims).toEqual({
      iss: h.issuer(),
      sub: 'alice',
      aud: 'web-app',
      azp: 'web-app',
      iat: h.nowSeconds(),
      exp: h.nowSeconds() + 3600,
      auth_time: grant.authTime,
      nonce: NONCE,
      acr: grant.acr,
      amr: grant.amr,
      sid: grant.sid,
      at_hash: leftHalfSha256(body.access_token as string),
    });

    const introspected = (
      await postAsApp(h, 'web-app', endpointPath('introspect'), {
        token: body.access_token as string,
      })
    ).json();
    expect(introspected).toMatchObject({
      active: true,
      sub: 'alice',
      client_id: 'web-app',
      aud: 'web-app',
      scope: 'openid profile',
    });
    expect(await h.store.listGrant(grant.grantId)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ namespace: 'access_token' }),
        expect.objectContaining({ namespace: 'refresh_token' }),
      ]),
    );
  });

  it('without openid → no ID token', async () => {
    const code = await grants.code({ scopes: ['profile'] });
    const body = expectTokens(await exchange(h, code));
    expect(body.id_token).toBeUndefined();
    expect(body.scope).toBe('profile');
  });

  it('without a nonce in the request → an ID token without nonce', async () => {
    const code = await grants.code({ nonce: undefined });
    const body = expectTokens(await exchange(h, code));
    expect((await verifiedIdToken(h, body.id_token)).nonce).toBeUndefined();
  });

  it('a client without the refresh_token grant → no refresh token', async () => {
    const code = await grants.code({
      clientId: 'native-client',
      redirectUri: 'com.example.app:/cb',
      scopes: ['openid'],
    });
    const response = await h.postAs('native-client', TOKEN, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: 'com.example.app:/cb',
      code_verifier: CODE_VERIFIER,
    });
    const body = expectTokens(response);
    expect(body.refresh_token).toBeUndefined();
    expect(body.id_token).toEqual(expect.any(String));
  });

  it('a code without code_challenge and no code_verifier → 200', async () => {
    const code = await grants.code({ codeChallenge: undefined });
    expectTokens(await exchange(h, code, { code_verifier: '' }));
  });

  it('is accepted until the code expires (59 s with the default 60 s)', async () => {
    const code = await grants.code();
    h.clock.advance(59);
    expectTokens(await exchange(h, code));
  });
});

describe('authorization_code: request errors', () => {
  it.each([
    ['code', 'invalid_request'],
    ['redirect_uri', 'invalid_request'],
  ])('missing %s → %s, and the code is not spent', async (field, error) => {
    const code = await grants.code();
    expectOAuthError(await exchange(h, code, { [field]: '' }), 400, error);
    expectTokens(await exchange(h, code));
  });

  it('an unknown code → invalid_grant', async () => {
    expectOAuthError(await exchange(h, 'not-a-code'), 400, 'invalid_grant');
  });

  it('an expired code → invalid_grant', async () => {
    const code = await grants.code();
    h.clock.advance(60);
    expectOAuthError(await exchange(h, code), 400, 'invalid_grant');
  });

  it("another client presenting an unused code → invalid_grant; the code's client still redeems it", async () => {
    const code = await grants.code();
    const response = await exchangeAs(h, SECOND_APP.client_id, code);
    expectOAuthError(response, 400, 'invalid_grant');
    expectTokens(await exchange(h, code));
  });

  it("another client presenting a used code → invalid_grant; the first client's tokens stay active", async () => {
    const code = await grants.code();
    const first = expectTokens(await exchange(h, code));
    const response = await exchangeAs(h, SECOND_APP.client_id, code);
    expectOAuthError(response, 400, 'invalid_grant');
    expect(response.json().error_description).not.toContain('already used');
    expect(await isActive(h, first.access_token as string)).toBe(true);
    expectTokens(await refresh(h, first.refresh_token as string));
  });

  it("another realm's code → invalid_grant", async () => {
    const keys = await clientKeyPair();
    const twoRealms = await createHarness({ otherRealms: [testRealm(keys, { name: 'second' })] });
    const code = await (await userGrants(twoRealms)).code();
    const response = await twoRealms.post(endpointPath('token', 'second'), {
      grant_type: 'authorization_code',
      code,
      redirect_uri: WEB_REDIRECT_URI,
      code_verifier: CODE_VERIFIER,
      client_id: 'web-app',
      client_secret: SECRETS.web,
    });
    expectOAuthError(response, 400, 'invalid_grant');
    expectTokens(await exchange(twoRealms, code));
  });

  it.each([
    ['a trailing slash', `${WEB_REDIRECT_URI}/`],
    ['another case', WEB_REDIRECT_URI.toUpperCase()],
    ['a query added', `${WEB_REDIRECT_URI}?x=1`],
    ['percent-encoding', WEB_REDIRECT_URI.replace('/cb', '/%63b')],
    ['another host', 'https://app.example.com.evil.example/cb'],
  ])('redirect_uri with %s → invalid_grant, and the code is not spent', async (_, redirect_uri) => {
    const code = await grants.code();
    expectOAuthError(await exchange(h, code, { redirect_uri }), 400, 'invalid_grant');
    expectTokens(await exchange(h, code));
  });
});

describe('authorization_code: PKCE', () => {
  it.each([
    ['a missing code_verifier', ''],
    ['a wrong code_verifier', `${CODE_VERIFIER.slice(0, -1)}2`],
    ['the code_challenge itself (plain)', undefined],
    ['a code_verifier of 42 characters', CODE_VERIFIER.slice(0, 42)],
  ])('%s → invalid_grant, and the code is not spent', async (_, verifier) => {
    const code = await grants.code();
    const code_verifier = verifier ?? CODE_CHALLENGE;
    expectOAuthError(await exchange(h, code, { code_verifier }), 400, 'invalid_grant');
    expectTokens(await exchange(h, code));
  });

  it('a code_verifier for a code issued without code_challenge → invalid_grant (downgrade)', async () => {
    const code = await grants.code({ codeChallenge: undefined });
    expectOAuthError(await exchange(h, code), 400, 'invalid_grant');
  });
});

describe('authorization_code: resource', () => {
  it('a code for a resource and no resource parameter → a token for that resource', async () => {
    const code = await grants.code({ scopes: ['openid', 'api:read'], resource: API_RESOURCE });
    const body = expectTokens(await exchange(h, code));
    expect(await isActive(h, body.access_token as string, 'api')).toBe(true);
    expect(await isActive(h, body.access_token as string, 'web-app')).toBe(false);
  });

  it('the same resource again → a token for it', async () => {
    const code = await grants.code({ scopes: ['api:read'], resource: API_RESOURCE });
    const body = expectTokens(await exchange(h, code, { resource: API_RESOURCE }));
    const introspected = (await h.introspect('api', body.access_token as string)).json();
    expect(introspected).toMatchObject({ active: true, aud: API_RESOURCE, resource: API_RESOURCE });
  });

  it('another resource than the code was for → invalid_target', async () => {
    const code = await grants.code({ scopes: ['api:read'], resource: API_RESOURCE });
    expectOAuthError(await exchange(h, code, { resource: OTHER_RESOURCE }), 400, 'invalid_target');
  });

  it('a code without resource and a declared resource the scopes cover → a token for it', async () => {
    const code = await grants.code({ scopes: ['openid', 'api:read'] });
    const body = expectTokens(await exchange(h, code, { resource: API_RESOURCE }));
    expect(await isActive(h, body.access_token as string, 'api')).toBe(true);
  });

  it('a code without resource and an undeclared resource → invalid_target', async () => {
    const code = await grants.code({ scopes: ['openid', 'api:read'] });
    const response = await exchange(h, code, { resource: 'https://unknown.example.com' });
    expectOAuthError(response, 400, 'invalid_target');
  });

  it('a code without resource and scopes that do not cover the resource → invalid_scope', async () => {
    const code = await grants.code({ scopes: ['openid', 'profile'] });
    expectOAuthError(await exchange(h, code, { resource: API_RESOURCE }), 400, 'invalid_scope');
  });
});

describe('authorization_code: replay', () => {
  it('a second exchange → invalid_grant, and the tokens of the first are revoked', async () => {
    const grant = grants.grant();
    const code = await grants.code(grant);
    const first = expectTokens(await exchange(h, code));
    expect(await isActive(h, first.access_token as string)).toBe(true);

    expectOAuthError(await exchange(h, code), 400, 'invalid_grant');
    expect(await isActive(h, first.access_token as string)).toBe(false);
    expectOAuthError(await refresh(h, first.refresh_token as string), 400, 'invalid_grant');
    expect(await h.store.listGrant(grant.grantId)).toEqual([]);
    expectOAuthError(await exchange(h, code), 400, 'invalid_grant');
  });

  it('concurrent exchanges → exactly one success, and no token issued from the code stays usable', async () => {
    const code = await grants.code();
    const responses = await Promise.all(Array.from({ length: 5 }, () => exchange(h, code)));
    const successes = responses.filter((response) => response.status === 200);
    expect(successes).toHaveLength(1);
    for (const response of responses) {
      if (response.status !== 200) expectOAuthError(response, 400, 'invalid_grant');
    }
    for (const success of successes) {
      const body = success.json();
      expect(await isActive(h, body.access_token as string)).toBe(false);
      expectOAuthError(await refresh(h, body.refresh_token as string), 400, 'invalid_grant');
    }
  });

  it('a replay while the first exchange is still issuing its tokens revokes them too', async () => {
    let arrived: () => void = () => {};
    const reachedGate = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    /** Holds the first access-token write until the replay has been answered. */
    class GatedStore extends RecordingStore {
      #held = false;
      override async add<T>(namespace: string, id: string, value: T, options?: RecordOptions) {
        if (namespace === 'access_token' && !this.#held) {
          this.#held = true;
          arrived();
          await gate;
        }
        return super.add(namespace, id, value, options);
      }
    }
    const gated = await createHarness({ store: (now) => new GatedStore({ now }) });
    const gatedGrants = await userGrants(gated);
    const grant = gatedGrants.grant();
    const code = await gatedGrants.code(grant);

    const first = exchange(gated, code);
    await reachedGate;
    expectOAuthError(await exchange(gated, code), 400, 'invalid_grant');
    release();
    const tokens = expectTokens(await first);
    expect(await gated.store.listGrant(grant.grantId)).toEqual([]);
    expect(await isActive(gated, tokens.access_token as string)).toBe(false);
  });
});
