import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_RESOURCE, OTHER_RESOURCE } from '../support/fixtures.js';
import {
  createHarness,
  expectOAuthError,
  type Harness,
  NO_STORE,
  REVOKE,
  TOKEN,
} from './harness.js';
import {
  expectTokens,
  isActive,
  mutableAccounts,
  postAsApp,
  refresh,
  SECOND_APP,
  type UserGrants,
  userGrants,
  verifiedIdToken,
} from './user-grants.js';

const DAY = 86_400;
const accounts = mutableAccounts();

let h: Harness;
let grants: UserGrants;
beforeAll(async () => {
  h = await createHarness({ extraClients: [SECOND_APP], accounts });
  grants = await userGrants(h);
});

/** Refreshes and returns the new token pair; fails the test on an error. */
async function rotate(
  refreshToken: string,
  fields: Record<string, string> = {},
): Promise<Record<string, unknown> & { access_token: string; refresh_token: string }> {
  const body = expectTokens(await refresh(h, refreshToken, fields));
  return {
    ...body,
    access_token: body.access_token as string,
    refresh_token: body.refresh_token as string,
  };
}

describe('refresh_token: rotation', () => {
  it('answers a new access token, a new refresh token and an ID token without nonce', async () => {
    const grant = grants.grant({ scopes: ['openid', 'profile'] });
    const old = await grants.refreshToken(grant);
    h.clock.advance(3600);
    const body = await rotate(old);
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 600,
      scope: 'openid profile',
      refresh_token: expect.any(String),
      id_token: expect.any(String),
    });
    expect(body.refresh_token).not.toBe(old);

    const payload = await verifiedIdToken(h, body.id_token);
    expect(payload).toMatchObject({
      sub: 'alice',
      auth_time: grant.authTime,
      iat: h.nowSeconds(),
      acr: grant.acr,
      amr: grant.amr,
      sid: grant.sid,
      at_hash: expect.any(String),
    });
    expect(payload.nonce).toBeUndefined();
    expect(await isActive(h, body.access_token)).toBe(true);
    expect(decodeJwt(body.access_token)).toMatchObject({ sub: 'alice', client_id: 'web-app' });

    const next = await rotate(body.refresh_token);
    expect(await isActive(h, next.access_token)).toBe(true);
  });

  it('reusing a rotated token → invalid_grant, and the whole grant is revoked', async () => {
    const grant = grants.grant();
    const original = await grants.refreshToken(grant);
    const first = await rotate(original);
    const second = await rotate(first.refresh_token);

    expectOAuthError(await refresh(h, original), 400, 'invalid_grant');
    // The legitimate holder's newest tokens die with the grant.
    expectOAuthError(await refresh(h, second.refresh_token), 400, 'invalid_grant');
    expect(await isActive(h, first.access_token)).toBe(false);
    expect(await isActive(h, second.access_token)).toBe(false);
    expect(await h.store.listGrant(grant.grantId)).toEqual([]);
  });

  it('concurrent refreshes with one token → exactly one success, and the grant is revoked', async () => {
    const grant = grants.grant();
    const token = await grants.refreshToken(grant);
    const responses = await Promise.all(Array.from({ length: 5 }, () => refresh(h, token)));
    expect(responses.filter((response) => response.status === 200)).toHaveLength(1);
    for (const response of responses) {
      if (response.status !== 200) expectOAuthError(response, 400, 'invalid_grant');
    }
    expect(await h.store.listGrant(grant.grantId)).toEqual([]);
  });

  it('keeps the absolute expiry of the grant: refresh_token_ttl counts from the authorization', async () => {
    const short = await createHarness({
      realm: { refresh_token_ttl: 1000 },
      extraClients: [SECOND_APP],
    });
    const shortGrants = await userGrants(short);
    let token = await shortGrants.refreshToken();
    short.clock.advance(600);
    token = expectTokens(await refresh(short, token)).refresh_token as string;
    short.clock.advance(399);
    token = expectTokens(await refresh(short, token)).refresh_token as string;
    short.clock.advance(1);
    expectOAuthError(await refresh(short, token), 400, 'invalid_grant');
  });
});

describe('refresh_token: rotation grace (refresh_token_rotation_grace)', () => {
  const GRACE = 5;
  let g: Harness;
  let graceGrants: UserGrants;
  beforeAll(async () => {
    g = await createHarness({
      realm: { refresh_token_rotation_grace: GRACE },
      extraClients: [SECOND_APP],
    });
    graceGrants = await userGrants(g);
  });

  const rotateIn = async (refreshToken: string) => {
    const body = expectTokens(await refresh(g, refreshToken));
    return { accessToken: body.access_token as string, refreshToken: body.refresh_token as string };
  };

  it('a retry within the grace gets the same refresh token, with an access token of its own', async () => {
    const grant = graceGrants.grant();
    const original = await graceGrants.refreshToken(grant);
    const first = await rotateIn(original);
    g.clock.advance(GRACE);
    const retry = await rotateIn(original);
    expect(retry.refreshToken).toBe(first.refreshToken);
    expect(retry.accessToken).not.toBe(first.accessToken);
    // Nothing was revoked: both answers' access tokens work, and the successor rotates once.
    expect(await isActive(g, first.accessToken)).toBe(true);
    expect(await isActive(g, retry.accessToken)).toBe(true);
    const next = await rotateIn(first.refreshToken);
    expect(next.refreshToken).not.toBe(first.refreshToken);
    expect(await isActive(g, next.accessToken)).toBe(true);
  });

  it('concurrent refreshes with one token within the grace all succeed with one successor', async () => {
    const grant = graceGrants.grant();
    const token = await graceGrants.refreshToken(grant);
    const answers = await Promise.all(Array.from({ length: 5 }, () => rotateIn(token)));
    expect(new Set(answers.map((answer) => answer.refreshToken)).size).toBe(1);
    expect(new Set(answers.map((answer) => answer.accessToken)).size).toBe(5);
    for (const { accessToken } of answers) expect(await isActive(g, accessToken)).toBe(true);
    // The successor was written once and works once: its own reuse after the grace is reuse.
    const [successor] = answers.map((answer) => answer.refreshToken) as [string];
    await rotateIn(successor);
    g.clock.advance(GRACE + 0.001);
    expectOAuthError(await refresh(g, successor), 400, 'invalid_grant');
    expect(await g.store.listGrant(grant.grantId)).toEqual([]);
  });

  it('reuse after the grace → invalid_grant, and the whole grant is revoked', async () => {
    const grant = graceGrants.grant();
    const original = await graceGrants.refreshToken(grant);
    const first = await rotateIn(original);
    g.clock.advance(GRACE + 0.001);
    const reuse = await refresh(g, original);
    expectOAuthError(reuse, 400, 'invalid_grant');
    expect(reuse.json().error_description).toBe(
      'the refresh token was already used; its grant is revoked',
    );
    expectOAuthError(await refresh(g, first.refreshToken), 400, 'invalid_grant');
    expect(await isActive(g, first.accessToken)).toBe(false);
    expect(await g.store.listGrant(grant.grantId)).toEqual([]);
  });

  it('another client presenting a rotated token within the grace → invalid_grant, never the successor', async () => {
    const original = await graceGrants.refreshToken();
    const first = await rotateIn(original);
    const foreign = await postAsApp(g, SECOND_APP.client_id, TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: original,
    });
    expectOAuthError(foreign, 400, 'invalid_grant');
    expect(foreign.body).not.toContain(first.refreshToken);
    await rotateIn(first.refreshToken);
  });

  it('stores the successor only under its digest, like every refresh token', async () => {
    const original = await graceGrants.refreshToken();
    const writes = g.store.writes.length;
    const { refreshToken } = await rotateIn(original);
    await rotateIn(original);
    const written = g.store.writes.slice(writes);
    const successorWrites = written.filter((write) => write.id.endsWith(tokenHash(refreshToken)));
    expect(successorWrites.map((write) => write.namespace)).toEqual([
      'refresh_token',
      'refresh_token',
    ]);
    for (const write of written) {
      expect(write.id).not.toContain(refreshToken);
      const value = JSON.stringify(await g.store.get(write.namespace, write.id));
      expect(value).not.toContain(refreshToken);
      expect(value).not.toContain(original);
    }
  });
});

describe('refresh_token: scope', () => {
  it('a narrower scope → an access token with it; the new refresh token keeps the grant', async () => {
    const token = await grants.refreshToken({ scopes: ['openid', 'profile', 'api:read'] });
    const narrowed = await rotate(token, { scope: 'profile' });
    expect(narrowed.scope).toBe('profile');
    expect(narrowed.id_token).toBeUndefined();
    expect(decodeJwt(narrowed.access_token).scope).toBe('profile');

    const full = await rotate(narrowed.refresh_token);
    expect(full.scope).toBe('openid profile api:read');
    expect(full.id_token).toEqual(expect.any(String));
  });

  it('without scope → the granted scopes the client is still assigned', async () => {
    // api:write is not (or no longer) assigned to web-app.
    const token = await grants.refreshToken({ scopes: ['openid', 'api:read', 'api:write'] });
    expect((await rotate(token)).scope).toBe('openid api:read');
  });

  it.each([
    ['assigned to the client but not granted', 'openid email'],
    ['not assigned to the client', 'api:write'],
    ['malformed', 'openid  profile'],
  ])('a scope %s → invalid_scope, and the token is not spent', async (_, scope) => {
    const token = await grants.refreshToken({ scopes: ['openid', 'profile'] });
    expectOAuthError(await refresh(h, token, { scope }), 400, 'invalid_scope');
    await rotate(token);
  });
});

describe('refresh_token: resource', () => {
  it('a grant for a resource and no resource parameter → a token for that resource', async () => {
    const token = await grants.refreshToken({ scopes: ['api:read'], resource: API_RESOURCE });
    const body = await rotate(token);
    expect(await isActive(h, body.access_token, 'api')).toBe(true);
    // The rotated token is still bound to the resource.
    expectOAuthError(
      await refresh(h, body.refresh_token, { resource: OTHER_RESOURCE }),
      400,
      'invalid_target',
    );
  });

  it('the same resource again → a token for it', async () => {
    const token = await grants.refreshToken({ scopes: ['api:read'], resource: API_RESOURCE });
    const body = await rotate(token, { resource: API_RESOURCE });
    expect(decodeJwt(body.access_token).aud).toBe(API_RESOURCE);
  });

  it('another resource than the grant is for → invalid_target, and the token is not spent', async () => {
    const token = await grants.refreshToken({ scopes: ['api:read'], resource: API_RESOURCE });
    expectOAuthError(await refresh(h, token, { resource: OTHER_RESOURCE }), 400, 'invalid_target');
    await rotate(token);
  });

  it('a grant without resource → each refresh may name a resource its scopes cover', async () => {
    const token = await grants.refreshToken({ scopes: ['openid', 'api:read'] });
    const forApi = await rotate(token, { resource: API_RESOURCE });
    expect(decodeJwt(forApi.access_token).aud).toBe(API_RESOURCE);
    const plain = await rotate(forApi.refresh_token);
    expect(decodeJwt(plain.access_token).aud).toBe('web-app');
  });

  it('a grant without resource and an undeclared resource → invalid_target', async () => {
    const token = await grants.refreshToken({ scopes: ['openid', 'api:read'] });
    expectOAuthError(
      await refresh(h, token, { resource: 'https://unknown.example.com' }),
      400,
      'invalid_target',
    );
  });

  it.each([
    ['the grant', ['openid', 'profile'], {}],
    ['the narrowed scope', ['openid', 'api:read'], { scope: 'openid' }],
  ])('scopes of %s that do not cover the resource → invalid_scope', async (_, scopes, fields) => {
    const token = await grants.refreshToken({ scopes });
    expectOAuthError(
      await refresh(h, token, { resource: API_RESOURCE, ...fields }),
      400,
      'invalid_scope',
    );
  });
});

describe('refresh_token: errors', () => {
  it('missing refresh_token → invalid_request', async () => {
    expectOAuthError(await refresh(h, ''), 400, 'invalid_request');
  });

  it('an unknown refresh token → invalid_grant', async () => {
    expectOAuthError(await refresh(h, 'not-a-refresh-token'), 400, 'invalid_grant');
  });

  it('an expired refresh token → invalid_grant', async () => {
    const token = await grants.refreshToken();
    h.clock.advance(30 * DAY);
    expectOAuthError(await refresh(h, token), 400, 'invalid_grant');
  });

  it("another client's refresh token → invalid_grant, and the token is not spent", async () => {
    const token = await grants.refreshToken();
    const response = await postAsApp(h, SECOND_APP.client_id, TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: token,
    });
    expectOAuthError(response, 400, 'invalid_grant');
    await rotate(token);
  });

  it('a client without the refresh_token grant → unauthorized_client', async () => {
    const token = await grants.refreshToken({ clientId: 'native-client', scopes: ['openid'] });
    const response = await h.postAs('native-client', TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: token,
    });
    expectOAuthError(response, 400, 'unauthorized_client');
  });

  it('an account that no longer exists → invalid_grant', async () => {
    const token = await grants.refreshToken({ sub: 'bob' });
    const body = await rotate(token);
    accounts.delete('bob');
    expectOAuthError(await refresh(h, body.refresh_token), 400, 'invalid_grant');
  });
});

describe('revocation of refresh tokens', () => {
  it.each([
    ['no hint', {}],
    ['the refresh_token hint', { token_type_hint: 'refresh_token' }],
    ['the access_token hint', { token_type_hint: 'access_token' }],
  ])('with %s → 200, and the whole grant is revoked', async (_, hint) => {
    const grant = grants.grant();
    const tokens = await rotate(await grants.refreshToken(grant));
    const response = await postAsApp(h, 'web-app', REVOKE, {
      token: tokens.refresh_token,
      ...hint,
    });
    expect({ status: response.status, headers: response.headers }).toEqual({
      status: 200,
      headers: NO_STORE,
    });
    expectOAuthError(await refresh(h, tokens.refresh_token), 400, 'invalid_grant');
    expect(await isActive(h, tokens.access_token)).toBe(false);
    expect(await h.store.listGrant(grant.grantId)).toEqual([]);
  });

  it('another client revoking the refresh token → 200, and nothing happens', async () => {
    const tokens = await rotate(await grants.refreshToken());
    const response = await postAsApp(h, SECOND_APP.client_id, REVOKE, {
      token: tokens.refresh_token,
    });
    expect(response.status).toBe(200);
    expect(await isActive(h, tokens.access_token)).toBe(true);
    await rotate(tokens.refresh_token);
  });

  it('revoking an access token of the grant leaves its refresh token usable', async () => {
    const tokens = await rotate(await grants.refreshToken());
    expect((await postAsApp(h, 'web-app', REVOKE, { token: tokens.access_token })).status).toBe(
      200,
    );
    expect(await isActive(h, tokens.access_token)).toBe(false);
    await rotate(tokens.refresh_token);
  });

  it('an expired refresh token → 200', async () => {
    const token = await grants.refreshToken();
    h.clock.advance(30 * DAY);
    expect((await postAsApp(h, 'web-app', REVOKE, { token })).status).toBe(200);
  });
});

/** The digest a refresh token is stored under, computed here rather than by the code under test. */
function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}
