import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildServer, parseServerConfig } from '@gatehouse-oidc/server';
import type { FastifyInstance } from 'fastify';
import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { form } from '../support/fixtures.js';
import { InjectBrowser } from './pages-support.js';
import { ADMIN_TOKEN, validConfig, withChanges } from './support.js';
import {
  aliceSignsInWith,
  codeExchange,
  refreshRequest,
  silentAuthorization,
  WEB_TOKEN_HEADERS,
} from './web-sign-in.js';

/**
 * The admin API's "Sessions and grants of a user" (shared/design/standalone-server.md, Version
 * 0.5 additions): real sign-ins through the built-in pages, then what each admin request answers
 * and what it leaves working.
 */

const BASE_URL = 'http://127.0.0.1:3000';
const AS_ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}` };

let app: FastifyInstance;
beforeEach(() => {
  const config = withChanges(validConfig(), {
    'realms.0.clients.2.grant_types': ['authorization_code', 'refresh_token'],
  });
  app = buildServer(parseServerConfig(config)).app;
});
afterEach(() => app.close());

const admin = (method: 'GET' | 'DELETE', url: string, headers: Record<string, string> = AS_ADMIN) =>
  app.inject({ method, url: `/admin/realms/${url}`, headers });

/** A browser in which alice signed in to web, and web's tokens from that sign-in. */
async function signedInBrowser(server: FastifyInstance = app) {
  const browser = new InjectBrowser(server, BASE_URL);
  const code = await aliceSignsInWith(browser, BASE_URL);
  const tokens = await server.inject({
    method: 'POST',
    url: '/oauth/demo/token',
    headers: WEB_TOKEN_HEADERS,
    payload: codeExchange(code),
  });
  expect(tokens.statusCode, tokens.body).toBe(200);
  const { access_token, refresh_token, id_token } = tokens.json();
  expect(refresh_token).toEqual(expect.any(String));
  return {
    browser,
    accessToken: String(access_token),
    refreshToken: String(refresh_token),
    idToken: String(id_token),
  };
}

/** What web's refresh with the token answers: `refreshed`, or the error code. */
async function refreshOutcome(refreshToken: string): Promise<string> {
  const answer = await app.inject({
    method: 'POST',
    url: '/oauth/demo/token',
    headers: WEB_TOKEN_HEADERS,
    payload: refreshRequest(refreshToken),
  });
  return answer.statusCode === 200 ? 'refreshed' : `${answer.statusCode} ${answer.json().error}`;
}

async function introspectionActive(accessToken: string): Promise<boolean> {
  const answer = await app.inject({
    method: 'POST',
    url: '/oauth/demo/introspect',
    headers: WEB_TOKEN_HEADERS,
    payload: form({ token: accessToken }),
  });
  return answer.json().active;
}

async function userinfoStatus(accessToken: string): Promise<number> {
  const answer = await app.inject({
    url: '/oauth/demo/userinfo',
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return answer.statusCode;
}

async function sessionsOfAlice(): Promise<{ sid: string; auth_time: number; clients: string[] }[]> {
  const answer = await admin('GET', 'demo/users/alice/sessions');
  expect(answer.statusCode).toBe(200);
  return answer.json().sessions;
}

describe('GET /admin/realms/{realm}/users/{sub}/sessions and grants', () => {
  it('lists each session with its sid, auth_time and clients, and each grant, nothing else', async () => {
    const laptop = await signedInBrowser();
    const phone = await signedInBrowser();
    const sessions = await admin('GET', 'demo/users/alice/sessions');
    expect(sessions.statusCode).toBe(200);
    expect(sessions.headers['content-type']).toMatch(/^application\/json/);
    expect(sessions.headers['cache-control']).toBe('no-store');
    const listed = sessions.json().sessions;
    expect(listed).toHaveLength(2);
    for (const session of listed) {
      expect(Object.keys(session).sort()).toEqual(['auth_time', 'clients', 'sid']);
      expect(session).toEqual({
        sid: expect.stringMatching(/^[\w-]{22,}$/),
        auth_time: expect.any(Number),
        clients: ['web'],
      });
    }
    expect(new Set(listed.map((session: { sid: string }) => session.sid)).size).toBe(2);

    const grants = await admin('GET', 'demo/users/alice/grants');
    expect(grants.statusCode).toBe(200);
    expect(grants.json()).toEqual({
      grants: [{ client_id: 'web', scope: 'openid profile', created_at: expect.any(Number) }],
    });

    // No cookie value or token of either browser appears in what the admin API shows.
    const shown = `${sessions.body}${grants.body}`;
    for (const { browser, accessToken, refreshToken } of [laptop, phone]) {
      for (const value of [accessToken, refreshToken, ...cookieValues(browser)])
        expect(shown).not.toContain(value);
    }
  });

  it('answers empty lists for a known user who never signed in', async () => {
    expect((await admin('GET', 'demo/users/bob/sessions')).json()).toEqual({ sessions: [] });
    expect((await admin('GET', 'demo/users/bob/grants')).json()).toEqual({ grants: [] });
  });
});

describe('DELETE /admin/realms/{realm}/users/{sub}/sessions', () => {
  it('logs alice out everywhere: no browser signs in silently, no refresh token works', async () => {
    const laptop = await signedInBrowser();
    const phone = await signedInBrowser();
    const answer = await admin('DELETE', 'demo/users/alice/sessions');
    expect(answer.statusCode).toBe(204);
    expect(answer.body).toBe('');
    expect(await sessionsOfAlice()).toEqual([]);
    for (const { browser, refreshToken } of [laptop, phone]) {
      expect(await silentAuthorization(browser, BASE_URL)).toBe('login_required');
      expect(await refreshOutcome(refreshToken)).toBe('400 invalid_grant');
    }
    // Consent is kept: the grant is still listed.
    expect((await admin('GET', 'demo/users/alice/grants')).json().grants).toHaveLength(1);
  });

  it('answers 204 for a known user without sessions', async () => {
    expect((await admin('DELETE', 'demo/users/bob/sessions')).statusCode).toBe(204);
  });
});

describe('DELETE /admin/realms/{realm}/sessions/{sid}', () => {
  it('ends that session only', async () => {
    const laptop = await signedInBrowser();
    const phone = await signedInBrowser();
    const sids = (await sessionsOfAlice()).map((session) => session.sid);
    expect(sids).toHaveLength(2);
    const [newest, older] = sids;
    const answer = await admin('DELETE', `demo/sessions/${newest}`);
    expect(answer.statusCode).toBe(204);
    expect((await sessionsOfAlice()).map((session) => session.sid)).toEqual([older]);
    const outcomes = await Promise.all(
      [laptop, phone].map(async ({ browser, refreshToken }) => [
        await silentAuthorization(browser, BASE_URL),
        await refreshOutcome(refreshToken),
      ]),
    );
    expect(outcomes.sort()).toEqual([
      ['code', 'refreshed'],
      ['login_required', '400 invalid_grant'],
    ]);
    // Ended once: the same request again finds no session.
    expect((await admin('DELETE', `demo/sessions/${newest}`)).statusCode).toBe(404);
  });
});

describe('DELETE /admin/realms/{realm}/users/{sub}/grants/{client_id}', () => {
  it('stops every token web holds for alice, and the next authorization asks for consent', async () => {
    const { browser, accessToken, refreshToken } = await signedInBrowser();
    expect(await introspectionActive(accessToken)).toBe(true);
    expect(await userinfoStatus(accessToken)).toBe(200);

    expect((await admin('DELETE', 'demo/users/alice/grants/web')).statusCode).toBe(204);
    expect(await introspectionActive(accessToken)).toBe(false);
    expect(await userinfoStatus(accessToken)).toBe(401);
    expect(await refreshOutcome(refreshToken)).toBe('400 invalid_grant');
    expect((await admin('GET', 'demo/users/alice/grants')).json()).toEqual({ grants: [] });
    // Still signed in, but consent is gone.
    expect(await silentAuthorization(browser, BASE_URL)).toBe('consent_required');
    expect((await admin('DELETE', 'demo/users/alice/grants/web')).statusCode).toBe(404);
  });
});

describe('refusals', () => {
  const routes: ['GET' | 'DELETE', string][] = [
    ['GET', 'demo/users/alice/sessions'],
    ['DELETE', 'demo/users/alice/sessions'],
    ['DELETE', 'demo/sessions/some-sid'],
    ['GET', 'demo/users/alice/grants'],
    ['DELETE', 'demo/users/alice/grants/web'],
  ];

  it.each(routes)('%s %s answers 401 without the admin token', async (method, url) => {
    const answer = await admin(method, url, {});
    expect(answer.statusCode).toBe(401);
    expect(answer.json()).toEqual({ error: 'invalid_token' });
  });

  it.each(routes)('%s %s answers 404 for an unknown realm', async (method, url) => {
    const answer = await admin(method, url.replace(/^demo/, 'nope'));
    expect([answer.statusCode, answer.json()]).toEqual([404, { error: 'not_found' }]);
  });

  it.each(routes.filter(([, url]) => url.includes('/users/')))(
    '%s %s answers 404 for an unknown user',
    async (method, url) => {
      const answer = await admin(method, url.replace('alice', 'mallory'));
      expect([answer.statusCode, answer.json()]).toEqual([404, { error: 'not_found' }]);
    },
  );

  it('answers 404 for an unknown sid, and for a client alice has no grant to', async () => {
    await signedInBrowser();
    expect((await admin('DELETE', 'demo/sessions/unknown-sid')).json()).toEqual({
      error: 'not_found',
    });
    for (const clientId of ['service', 'no-such-client']) {
      const answer = await admin('DELETE', `demo/users/alice/grants/${clientId}`);
      expect([answer.statusCode, answer.json()]).toEqual([404, { error: 'not_found' }]);
    }
    expect((await sessionsOfAlice()).length).toBe(1);
  });
});

/** The values of the cookies the browser holds for the server. */
function cookieValues(browser: InjectBrowser): string[] {
  return [...browser.setCookies.values()].map((cookie) => {
    const pair = cookie.split(';', 1)[0] ?? '';
    return pair.slice(pair.indexOf('=') + 1);
  });
}

describe('the admin API notifies the clients of the sessions it ends', () => {
  const received: string[] = [];
  let receiver: Server;
  let notifiedApp: FastifyInstance;

  beforeEach(async () => {
    received.length = 0;
    receiver = createServer(async (request, response) => {
      let body = '';
      for await (const chunk of request) body += chunk;
      received.push(new URLSearchParams(body).get('logout_token') ?? '');
      response.writeHead(200).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const { port } = receiver.address() as AddressInfo;
    const config = withChanges(validConfig(), {
      'realms.0.clients.2.grant_types': ['authorization_code', 'refresh_token'],
      'realms.0.clients.2.backchannel_logout_uri': `http://127.0.0.1:${port}/logout`,
      'realms.0.clients.2.backchannel_logout_session_required': true,
    });
    notifiedApp = buildServer(parseServerConfig(config)).app;
  });
  afterEach(async () => {
    await notifiedApp.close();
    await new Promise((resolve) => receiver.close(resolve));
  });

  /** The sid of a new sign-in of alice to web, as its ID token carries it. */
  async function signIn(): Promise<string> {
    const { idToken } = await signedInBrowser(notifiedApp);
    return String(decodeJwt(idToken).sid);
  }

  /** The sids of the logout tokens received, each verified as web would (Back-Channel Logout §2.6). */
  async function notifiedSids(count: number): Promise<string[]> {
    await vi.waitFor(() => expect(received).toHaveLength(count), { timeout: 5000 });
    const jwks = createLocalJWKSet((await notifiedApp.inject({ url: '/oauth/demo/jwks' })).json());
    const sids: string[] = [];
    for (const token of received) {
      const { payload } = await jwtVerify(token, jwks, {
        issuer: `${BASE_URL}/oauth/demo`,
        audience: 'web',
        typ: 'logout+jwt',
        requiredClaims: ['iat', 'exp', 'jti', 'sid', 'events'],
      });
      expect(payload.sub).toBe('alice');
      expect(payload.events).toEqual({ 'http://schemas.openid.net/event/backchannel-logout': {} });
      sids.push(String(payload.sid));
    }
    return sids.sort();
  }

  it('DELETE of a user’s sessions sends web a logout token for each', async () => {
    const sids = [await signIn(), await signIn()].sort();
    const answer = await notifiedApp.inject({
      method: 'DELETE',
      url: '/admin/realms/demo/users/alice/sessions',
      headers: AS_ADMIN,
    });
    expect(answer.statusCode).toBe(204);
    expect(await notifiedSids(2)).toEqual(sids);
  });

  it('DELETE of one session sends web a logout token for that session only', async () => {
    const [ended] = [await signIn(), await signIn()];
    const answer = await notifiedApp.inject({
      method: 'DELETE',
      url: `/admin/realms/demo/sessions/${ended}`,
      headers: AS_ADMIN,
    });
    expect(answer.statusCode).toBe(204);
    expect(await notifiedSids(1)).toEqual([ended]);
  });
});
