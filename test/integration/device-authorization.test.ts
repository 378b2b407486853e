import type { GatehouseEvent } from '@gatehouse-oidc/core';
import { decodeJwt } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { dpopKey } from '../support/dpop.js';
import { API_RESOURCE } from '../support/fixtures.js';
import { browser } from './browser.js';
import {
  createHarness,
  endpointPath,
  expectOAuthError,
  type Harness,
  NO_STORE,
  REVOKE,
  TOKEN,
} from './harness.js';

const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code' as const;
const DEVICE_AUTH = endpointPath('device/auth');
const TV_SECRET = 'tv-secret-0123456789abcdef';

const tvApp = {
  client_id: 'tv-app',
  client_name: 'Living Room TV',
  token_endpoint_auth_method: 'none' as const,
  grant_types: [DEVICE, 'refresh_token' as const],
  scope: 'openid profile api:read',
};
const confidentialTv = {
  client_id: 'tv-confidential',
  client_secret: TV_SECRET,
  token_endpoint_auth_method: 'client_secret_post' as const,
  grant_types: [DEVICE],
  scope: 'openid profile',
  skip_consent: true,
};

let h: Harness;
let events: GatehouseEvent[];

beforeEach(async () => {
  events = [];
  h = await createHarness({
    extraClients: [tvApp, { ...tvApp, client_id: 'other-tv' }, confidentialTv],
    onEvent: (event) => {
      events.push(event);
    },
  });
});

interface DeviceAuthorization {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

async function authorizeDevice(
  fields: Record<string, string> = {},
  clientId = 'tv-app',
): Promise<DeviceAuthorization> {
  const response = await h.post(DEVICE_AUTH, {
    client_id: clientId,
    scope: 'openid profile',
    ...fields,
  });
  expect(response.status, response.body).toBe(200);
  return response.json() as unknown as DeviceAuthorization;
}

const poll = (deviceCode: string, clientId = 'tv-app', headers: Record<string, string> = {}) =>
  h.post(TOKEN, { grant_type: DEVICE, device_code: deviceCode, client_id: clientId }, headers);

describe('device authorization endpoint (RFC 8628 §3.1, §3.2)', () => {
  it('is in discovery, with the grant type', async () => {
    const metadata = (await h.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata.device_authorization_endpoint).toBe(`${h.issuer()}/device/auth`);
    expect(metadata.grant_types_supported).toContain(DEVICE);
  });

  it('answers a device_code, an XXXX-XXXX user code, the verification URIs, expires_in and interval', async () => {
    const response = await h.post(DEVICE_AUTH, { client_id: 'tv-app', scope: 'openid profile' });
    expect(response.status).toBe(200);
    expect(response.headers).toMatchObject(NO_STORE);
    const body = response.json() as unknown as DeviceAuthorization;
    expect(body.device_code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(body.verification_uri).toBe(`${h.issuer()}/device`);
    expect(body.verification_uri_complete).toBe(
      `${h.issuer()}/device?user_code=${encodeURIComponent(body.user_code)}`,
    );
    expect(body).toMatchObject({ expires_in: 600, interval: 5 });
    // The store keeps digests: neither code appears in any key.
    const keys = h.store.writes.map((write) => write.id).join(' ');
    expect(keys).not.toContain(body.device_code);
    expect(keys).not.toContain(body.user_code.replace('-', ''));
  });

  it('authenticates confidential clients as the token endpoint does', async () => {
    const wrong = await h.post(DEVICE_AUTH, {
      client_id: 'tv-confidential',
      client_secret: 'nope',
    });
    await expectOAuthError(wrong, 400, 'invalid_client');
    const right = await h.post(DEVICE_AUTH, {
      client_id: 'tv-confidential',
      client_secret: TV_SECRET,
    });
    expect(right.status).toBe(200);
  });

  it('refuses a client without the grant type, and scopes or resources the client may not have', async () => {
    await expectOAuthError(
      await h.postAs('native-client', DEVICE_AUTH, { scope: 'openid' }),
      400,
      'unauthorized_client',
    );
    await expectOAuthError(
      await h.post(DEVICE_AUTH, { client_id: 'tv-app', scope: 'openid email' }),
      400,
      'invalid_scope',
    );
    await expectOAuthError(
      await h.post(DEVICE_AUTH, {
        client_id: 'tv-app',
        scope: 'openid',
        resource: 'https://elsewhere.example.com',
      }),
      400,
      'invalid_request',
    );
  });
});

describe('the user in a browser, the device polling (RFC 8628 §3.3 to §3.5)', () => {
  it('pending, then approved after login and consent: tokens of the user, exactly once', async () => {
    const device = await authorizeDevice({
      scope: 'openid profile api:read',
      resource: API_RESOURCE,
    });
    h.clock.advance(5);
    await expectOAuthError(await poll(device.device_code), 400, 'authorization_pending');

    const user = browser(h);
    // The user types it in lower case, without the dash, with spaces.
    const typed = ` ${device.user_code.replace('-', ' ').toLowerCase()} `;
    const login = await user.enterUserCode(typed);
    if (!login) throw new Error('the user code was refused');
    expect(login.headers.location).toMatch(new RegExp(`^${h.issuer()}/interaction/`));
    const loginDetails = await user.details(login);
    expect(loginDetails).toMatchObject({
      prompt: 'login',
      client: { id: 'tv-app', name: 'Living Room TV' },
      device: { userCode: device.user_code },
    });
    const consent = await user.finish(login, { login: { sub: 'alice', amr: ['pwd'] } });
    const consentDetails = await user.details(consent);
    expect(consentDetails).toMatchObject({
      prompt: 'consent',
      scopes: ['openid', 'profile', 'api:read'],
      device: { userCode: device.user_code },
    });
    const done = await user.finish(consent, { consent: { scopes: ['openid', 'api:read'] } });
    expect(done.status).toBe(302);
    const back = new URL(done.headers.location ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(device.verification_uri);
    expect(back.searchParams.get('result')).toBe('approved');
    expect(back.searchParams.get('iss')).toBe(h.issuer());

    h.clock.advance(5);
    const tokens = await poll(device.device_code);
    expect(tokens.status, tokens.body).toBe(200);
    const body = tokens.json();
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'openid api:read' });
    expect(body.refresh_token).toEqual(expect.any(String));
    expect(decodeJwt(body.access_token as string)).toMatchObject({
      sub: 'alice',
      client_id: 'tv-app',
      aud: API_RESOURCE,
    });
    expect(decodeJwt(body.id_token as string)).toMatchObject({
      sub: 'alice',
      aud: 'tv-app',
      amr: ['pwd'],
    });

    h.clock.advance(5);
    await expectOAuthError(await poll(device.device_code), 400, 'invalid_grant');
    // The code the user typed is spent too.
    expect(
      await h.provider.device.start('test', device.user_code, { cookieHeader: undefined }),
    ).toBeUndefined();

    const issued = events.filter((event) => event.type === 'token_issued');
    expect(issued).toEqual([
      expect.objectContaining({ grantType: DEVICE, clientId: 'tv-app', sub: 'alice' }),
    ]);
    const serialized = JSON.stringify(events);
    expect(serialized).not.toContain(device.device_code);
    expect(serialized).not.toContain(device.user_code);
    expect(serialized).not.toContain(body.access_token as string);
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['sign_in', 'consent', 'token_issued']),
    );
  });

  it('gives the tokens to exactly one of many concurrent polls', async () => {
    const device = await authorizeDevice();
    await browser(h).answerDevice(device.user_code, 'allow');
    h.clock.advance(5);
    const answers = await Promise.all(Array.from({ length: 8 }, () => poll(device.device_code)));
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const answer of answers.filter((each) => each.status !== 200)) {
      expect(answer.json().error).toBe('invalid_grant');
    }
  });

  it('a signed-in browser goes straight to the consent page, which even a skip_consent client gets', async () => {
    const user = browser(h);
    await user.signIn();
    const device = await authorizeDevice({ client_secret: TV_SECRET }, 'tv-confidential');
    const page = await user.enterUserCode(device.user_code);
    if (!page) throw new Error('the user code was refused');
    expect(await user.details(page)).toMatchObject({ prompt: 'consent', sub: 'alice' });
  });

  it('slow_down for a poll sooner than the interval, which grows by 5 seconds each time', async () => {
    const device = await authorizeDevice();
    h.clock.advance(1);
    await expectOAuthError(await poll(device.device_code), 400, 'slow_down');
    // Now 10 seconds: 6 later is still too soon, and adds 5 more.
    h.clock.advance(6);
    await expectOAuthError(await poll(device.device_code), 400, 'slow_down');
    h.clock.advance(15);
    await expectOAuthError(await poll(device.device_code), 400, 'authorization_pending');
    h.clock.advance(14);
    await expectOAuthError(await poll(device.device_code), 400, 'slow_down');
  });

  it('access_denied once the user denies, and the browser is told so', async () => {
    const device = await authorizeDevice();
    const done = await browser(h).answerDevice(device.user_code, 'deny');
    const back = new URL(done.headers.location ?? '');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(`${back.origin}${back.pathname}`).toBe(device.verification_uri);
    h.clock.advance(5);
    await expectOAuthError(await poll(device.device_code), 400, 'access_denied');
  });

  it('expired_token past expires_in; the user code is then refused', async () => {
    const device = await authorizeDevice();
    h.clock.advance(600);
    expect(
      await h.provider.device.start('test', device.user_code, { cookieHeader: undefined }),
    ).toBeUndefined();
    await expectOAuthError(await poll(device.device_code), 400, 'expired_token');
  });

  it('an approval expires with its request if the user takes too long to consent', async () => {
    const device = await authorizeDevice();
    const user = browser(h);
    const login = await user.enterUserCode(device.user_code);
    if (!login) throw new Error('the user code was refused');
    await user.details(login);
    const consent = await user.finish(login, { login: { sub: 'alice' } });
    await user.details(consent);
    h.clock.advance(600);
    const done = await user.finish(consent, { consent: { scopes: ['openid', 'profile'] } });
    expect(done.status).toBe(400);
    await expectOAuthError(await poll(device.device_code), 400, 'expired_token');
  });

  it('a code approved for one device is no use to another client, nor is another device_code', async () => {
    const device = await authorizeDevice();
    const other = await authorizeDevice({}, 'other-tv');
    await browser(h).answerDevice(device.user_code, 'allow');
    h.clock.advance(5);
    await expectOAuthError(await poll(device.device_code, 'other-tv'), 400, 'invalid_grant');
    await expectOAuthError(await poll(other.device_code, 'other-tv'), 400, 'authorization_pending');
    await expectOAuthError(await poll('made-up-device-code'), 400, 'invalid_grant');
    expect((await poll(device.device_code)).status).toBe(200);
  });

  it('unknown and malformed user codes start nothing', async () => {
    await authorizeDevice();
    for (const typed of ['BCDF-GHJK', 'AAAA-AAAA', '', 'x'.repeat(5000)]) {
      expect(
        await h.provider.device.start('test', typed, { cookieHeader: undefined }),
      ).toBeUndefined();
    }
    expect(
      await h.provider.device.start('nope', 'BCDF-GHJK', { cookieHeader: undefined }),
    ).toBeUndefined();
  });

  it('binds the tokens to the DPoP key of the poll that gets them (RFC 9449)', async () => {
    const device = await authorizeDevice();
    await browser(h).answerDevice(device.user_code, 'allow');
    h.clock.advance(5);
    const key = await dpopKey(h.clock.now);
    const proof = await key.proof({ htu: `${h.issuer()}/token` });
    const tokens = await poll(device.device_code, 'tv-app', { dpop: proof });
    expect(tokens.status, tokens.body).toBe(200);
    expect(tokens.json().token_type).toBe('DPoP');
    expect(decodeJwt(tokens.json().access_token as string).cnf).toEqual({ jkt: key.jkt });
  });
});

describe('device tokens in the token lifecycle', () => {
  /** Device tokens for the API, with the ways to use them the way a device and an API would. */
  async function apiTokens() {
    const device = await authorizeDevice({ scope: 'openid api:read', resource: API_RESOURCE });
    await browser(h).answerDevice(device.user_code, 'allow');
    h.clock.advance(5);
    const tokens = (await poll(device.device_code)).json();
    const accessToken = tokens.access_token as string;
    return {
      active: async () => (await h.introspect('api', accessToken)).json().active,
      refresh: () =>
        h.post(TOKEN, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token as string,
          client_id: 'tv-app',
        }),
      revokeRefreshToken: () =>
        h.post(REVOKE, { token: tokens.refresh_token as string, client_id: 'tv-app' }),
    };
  }

  it('form one family: the refresh token revoked (RFC 7009) ends the access token too', async () => {
    const tokens = await apiTokens();
    expect(await tokens.active()).toBe(true);
    expect((await tokens.revokeRefreshToken()).status).toBe(200);
    expect(await tokens.active()).toBe(false);
    await expectOAuthError(await tokens.refresh(), 400, 'invalid_grant');
  });

  it('end when the user revokes the consent, like CIBA tokens', async () => {
    const tokens = await apiTokens();
    await h.provider.grants.revoke('test', 'alice', 'tv-app');
    expect(await tokens.active()).toBe(false);
    await expectOAuthError(await tokens.refresh(), 400, 'invalid_grant');
  });

  it('outlive the browser session they were approved in', async () => {
    const device = await authorizeDevice({ scope: 'openid api:read', resource: API_RESOURCE });
    const user = browser(h);
    await user.answerDevice(device.user_code, 'allow');
    h.clock.advance(5);
    const tokens = (await poll(device.device_code)).json();
    await h.provider.sessions.endAll('test', 'alice');
    expect((await h.introspect('api', tokens.access_token as string)).json().active).toBe(true);
  });
});
