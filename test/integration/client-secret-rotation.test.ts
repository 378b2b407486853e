import { type ClientInput, type GatehouseEvent, rotateClientSecret } from '@gatehouse-oidc/core';
import { fakeClock } from '@gatehouse-oidc/core/testing';
import { describe, expect, it } from 'vitest';
import {
  basicAuthorization,
  createHarness,
  type Harness,
  JWT_BEARER,
  RecordingStore,
  TOKEN,
} from './harness.js';
import { userGrants } from './user-grants.js';
import { userSessions } from './user-session.js';

/**
 * A client secret rotated without downtime (previous_client_secret and rotateClientSecret), and
 * every token of a client revoked at once (provider.clients.revokeTokens).
 */

const OLD_SECRET = 'the-old-secret-of-a-rotated-client-0123456789';
const DAY = 86_400;

const machine = (clientId: string, method: ClientInput['token_endpoint_auth_method']) =>
  ({
    client_id: clientId,
    client_secret: OLD_SECRET,
    token_endpoint_auth_method: method,
    grant_types: ['client_credentials'],
    scope: 'api:read',
  }) satisfies ClientInput;

/** A harness whose two machine clients (basic and client_secret_jwt) were just rotated. */
async function rotated(overlapSeconds?: number) {
  const clock = fakeClock();
  const options = { now: clock.now(), ...(overlapSeconds === undefined ? {} : { overlapSeconds }) };
  const basic = rotateClientSecret(machine('rotated-basic', 'client_secret_basic'), options);
  const jwt = rotateClientSecret(machine('rotated-jwt', 'client_secret_jwt'), options);
  const h = await createHarness({ clock, extraClients: [basic.client, jwt.client] });
  return { h, clock, basic, jwt };
}

/** The status of a client-credentials request authenticated with `secret`. */
async function withBasic(h: Harness, secret: string): Promise<number> {
  const authorization = basicAuthorization('rotated-basic', secret);
  const response = await h.post(TOKEN, { grant_type: 'client_credentials' }, { authorization });
  return response.status;
}

async function withAssertion(h: Harness, secret: string): Promise<number> {
  const key = new TextEncoder().encode(secret);
  const assertion = await h.assertion(key, 'HS256', {
    iss: 'rotated-jwt',
    jti: crypto.randomUUID(),
  });
  const response = await h.post(TOKEN, {
    grant_type: 'client_credentials',
    client_assertion: assertion,
    client_assertion_type: JWT_BEARER,
  });
  return response.status;
}

describe('rotateClientSecret', () => {
  it('makes a new 256-bit secret and keeps the old one working for a day by default', async () => {
    const { h, clock, basic, jwt } = await rotated();
    expect(basic.clientSecret).toMatch(/^[\w-]{43}$/);
    expect(basic.clientSecret).not.toBe(jwt.clientSecret);
    expect(basic.previousSecretExpiresAt).toBe(h.nowSeconds() + DAY);
    expect(basic.client).toMatchObject({
      client_secret: basic.clientSecret,
      previous_client_secret: OLD_SECRET,
      previous_client_secret_expires_at: basic.previousSecretExpiresAt,
    });
    for (const secret of [OLD_SECRET, basic.clientSecret]) {
      expect(await withBasic(h, secret)).toBe(200);
      expect(await withAssertion(h, secret === OLD_SECRET ? OLD_SECRET : jwt.clientSecret)).toBe(
        200,
      );
    }
    clock.advance(DAY - 1);
    expect(await withBasic(h, OLD_SECRET)).toBe(200);
    expect(await withAssertion(h, OLD_SECRET)).toBe(200);
    clock.advance(1);
    expect(await withBasic(h, OLD_SECRET)).toBe(401);
    expect(await withAssertion(h, OLD_SECRET)).toBe(400);
    expect(await withBasic(h, basic.clientSecret)).toBe(200);
    expect(await withAssertion(h, jwt.clientSecret)).toBe(200);
  });

  it('ends the old secret at once with an overlap of 0', async () => {
    const { h, basic, jwt } = await rotated(0);
    expect(basic.client.previous_client_secret).toBeUndefined();
    expect(basic.previousSecretExpiresAt).toBe(h.nowSeconds());
    expect(await withBasic(h, OLD_SECRET)).toBe(401);
    expect(await withAssertion(h, OLD_SECRET)).toBe(400);
    expect(await withBasic(h, basic.clientSecret)).toBe(200);
    expect(await withAssertion(h, jwt.clientSecret)).toBe(200);
  });

  it('drops the secret an earlier rotation left working', async () => {
    const first = rotateClientSecret(machine('rotated-basic', 'client_secret_basic'));
    const second = rotateClientSecret(first.client, { overlapSeconds: 60 });
    expect(second.client.previous_client_secret).toBe(first.clientSecret);
    expect(JSON.stringify(second.client)).not.toContain(OLD_SECRET);
  });
});

describe('provider.clients.revokeTokens', () => {
  /** Two providers on one store and clock: two instances of one deployment. */
  async function twoInstances(format: 'jwt' | 'opaque' = 'jwt') {
    const clock = fakeClock();
    const store = new RecordingStore({ now: clock.now });
    const events: GatehouseEvent[] = [];
    const realm = { access_token_format: format };
    const a = await createHarness({
      clock,
      realm,
      store: () => store,
      onEvent: (event) => void events.push(event),
    });
    const b = await createHarness({ clock, realm, store: () => store });
    return { a, b, clock, events };
  }

  const active = async (h: Harness, clientId: string, token: string) =>
    (await h.introspect(clientId, token)).json().active;

  async function refreshes(h: Harness, refreshToken: string): Promise<number> {
    const response = await h.postAs('web-app', TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    });
    return response.status;
  }

  it.each(['opaque', 'jwt'] as const)(
    'stops every %s access token and refresh token of the client at every instance at once; later ones work',
    async (format) => {
      const { a, b, clock, events } = await twoInstances(format);
      const users = await userSessions(a);
      const userToken = await users.accessToken();
      const refreshToken = await (await userGrants(a)).refreshToken();
      const machineToken = await a.issueToken('post-client');
      const otherClients = await a.issueToken('basic-client');

      clock.advance(1);
      await a.provider.clients.revokeTokens('test', 'web-app');
      await a.provider.clients.revokeTokens('test', 'post-client');
      expect(await active(b, 'web-app', userToken)).toBe(false);
      expect(await active(b, 'post-client', machineToken)).toBe(false);
      expect(await refreshes(b, refreshToken)).toBe(400);
      expect(await active(b, 'basic-client', otherClients)).toBe(true);

      // Issued in the same millisecond, after the revocation: not taken for an older token.
      expect(await active(b, 'post-client', await a.issueToken('post-client'))).toBe(true);
      const laterRefresh = await (await userGrants(a)).refreshToken();
      expect(await refreshes(b, laterRefresh)).toBe(200);
      expect(events.filter((event) => event.type === 'client_tokens_revoked')).toEqual([
        expect.objectContaining({ clientId: 'web-app', realm: 'test' }),
        expect.objectContaining({ clientId: 'post-client', realm: 'test' }),
      ]);
    },
  );

  it('rejects for an unknown realm', async () => {
    const { a } = await twoInstances();
    await expect(a.provider.clients.revokeTokens('nope', 'web-app')).rejects.toThrow(
      'unknown realm',
    );
  });
});
