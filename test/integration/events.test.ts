import type { GatehouseEvent } from '@gatehouse-oidc/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { SECRETS, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, CODE_VERIFIER, clientParams } from './browser.js';
import { createHarness, endpointPath, type Harness, REVOKE, TOKEN } from './harness.js';
import { expectTokens, postAsApp, refresh, SECOND_APP } from './user-grants.js';

/**
 * The provider's events (docs/telemetry.md) in the flows that cause them: each fires once, with
 * the identifiers of what happened, and none carries a secret, a token, a code or a cookie.
 */

let h: Harness;
let events: GatehouseEvent[];
/** Every credential the tests saw go over the wire; no event may contain one. */
let credentials: string[];

beforeEach(async () => {
  events = [];
  credentials = Object.values(SECRETS);
  h = await createHarness({
    extraClients: [SECOND_APP],
    onEvent: (event) => {
      events.push(event);
    },
  });
});

/** Listeners run in a microtask of their own: let them. */
const delivered = () => new Promise((resolve) => setTimeout(resolve, 0));

/** The events since the last call, checked against every credential seen so far. */
async function take(): Promise<GatehouseEvent[]> {
  await delivered();
  const taken = events.splice(0);
  const serialized = JSON.stringify(taken);
  for (const credential of credentials) expect(serialized).not.toContain(credential);
  return taken;
}

type Browser = ReturnType<typeof browser>;

/** Signs `b` in as alice for web-app and returns the code, remembering it and the cookies. */
async function signIn(b: Browser, params: Record<string, string> = {}) {
  const { params: answer } = clientParams(await b.signIn(params));
  credentials.push(...Object.values(answer).filter((value) => value.length >= 16));
  credentials.push(...cookieValues(b));
  return answer;
}

function cookieValues(b: Browser): string[] {
  const header = b.jar.header(new URL(h.issuer())).cookie ?? '';
  return header.split('; ').map((pair) => pair.slice(pair.indexOf('=') + 1));
}

/** web-app's exchange of a code the browser helper got. */
const exchange = (code: string) =>
  postAsApp(h, 'web-app', TOKEN, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: WEB_REDIRECT_URI,
    code_verifier: CODE_VERIFIER,
  });

/** The token response's body, its tokens remembered as credentials. */
function tokens(response: Awaited<ReturnType<typeof exchange>>) {
  const body = expectTokens(response);
  for (const name of ['access_token', 'refresh_token', 'id_token']) {
    if (typeof body[name] === 'string') credentials.push(body[name]);
  }
  return body;
}

const base = () => ({ realm: 'test', time: h.clock.now() });

describe('events of a browser sign-in and its tokens', () => {
  it('sign_in and consent once each, then token_issued per grant and reuse_detected', async () => {
    const b = browser(h);
    const { code = '' } = await signIn(b);
    const [signInEvent, consentEvent, ...rest] = await take();
    expect(rest).toEqual([]);
    const [session] = await h.provider.sessions.list('test', 'alice');
    const sid = session?.sid ?? 'missing';
    expect(signInEvent).toEqual({
      ...base(),
      type: 'sign_in',
      sub: 'alice',
      sid,
      clientId: 'web-app',
    });
    expect(consentEvent).toEqual({
      ...base(),
      type: 'consent',
      sub: 'alice',
      clientId: 'web-app',
      scopes: ['openid', 'profile'],
    });

    const issued = tokens(await exchange(code));
    const [fromCode, ...none] = await take();
    expect(none).toEqual([]);
    expect(fromCode).toEqual({
      ...base(),
      type: 'token_issued',
      grantType: 'authorization_code',
      clientId: 'web-app',
      sub: 'alice',
      sid,
      grantId: expect.any(String),
      jti: expect.any(String),
      scopes: ['openid', 'profile'],
      tokens: ['access_token', 'refresh_token', 'id_token'],
    });
    const grantId = fromCode?.type === 'token_issued' ? fromCode.grantId : undefined;

    const refreshed = tokens(await refresh(h, issued.refresh_token as string));
    expect(await take()).toEqual([
      expect.objectContaining({
        type: 'token_issued',
        grantType: 'refresh_token',
        grantId,
        sid,
        tokens: ['access_token', 'refresh_token', 'id_token'],
      }),
    ]);
    expect(refreshed.refresh_token).not.toBe(issued.refresh_token);

    expect((await refresh(h, issued.refresh_token as string)).status).toBe(400);
    expect(await take()).toEqual([
      {
        ...base(),
        type: 'reuse_detected',
        credential: 'refresh_token',
        clientId: 'web-app',
        sub: 'alice',
        grantId,
        sid,
      },
    ]);
  });

  it('reuse_detected for a replayed code, with the grant it revoked', async () => {
    const { code = '' } = await signIn(browser(h));
    tokens(await exchange(code));
    const [, , issued] = await take();
    expect((await exchange(code)).status).toBe(400);
    expect(await take()).toEqual([
      {
        ...base(),
        type: 'reuse_detected',
        credential: 'authorization_code',
        clientId: 'web-app',
        sub: 'alice',
        grantId: issued?.type === 'token_issued' ? issued.grantId : 'missing',
        sid: issued?.type === 'token_issued' ? issued.sid : 'missing',
      },
    ]);
  });

  it('token_issued with grantType implicit for tokens of the authorization endpoint', async () => {
    const answer = await signIn(browser(h), { response_type: 'id_token token' });
    const taken = await take();
    expect(taken.map((event) => event.type)).toEqual(['sign_in', 'consent', 'token_issued']);
    expect(taken[2]).toMatchObject({
      grantType: 'implicit',
      clientId: 'web-app',
      tokens: ['access_token', 'id_token'],
    });
    expect(answer.access_token).toBeDefined();
  });
});

describe('events of revocation', () => {
  it('token_revoked for an access token with its jti, for a refresh token with its grant', async () => {
    const { code = '' } = await signIn(browser(h));
    const issued = tokens(await exchange(code));
    const [, , fromCode] = await take();
    const { jti, grantId } =
      fromCode?.type === 'token_issued' ? fromCode : { jti: '', grantId: '' };

    await postAsApp(h, 'web-app', REVOKE, { token: issued.access_token as string });
    await postAsApp(h, 'web-app', REVOKE, { token: issued.refresh_token as string });
    // Another client's token is not revoked, so nothing happened.
    await postAsApp(h, SECOND_APP.client_id, REVOKE, { token: issued.refresh_token as string });
    const common = { ...base(), type: 'token_revoked', clientId: 'web-app', sub: 'alice', grantId };
    expect(await take()).toEqual([
      { ...common, tokenType: 'access_token', jti },
      { ...common, tokenType: 'refresh_token' },
    ]);
  });

  it('grant_revoked when the host revokes a grant, and nothing for a grant that does not exist', async () => {
    await signIn(browser(h));
    await take();
    expect(await h.provider.grants.revoke('test', 'alice', 'web-app')).toBe(true);
    expect(await h.provider.grants.revoke('test', 'alice', 'web-app')).toBe(false);
    expect(await take()).toEqual([
      { ...base(), type: 'grant_revoked', sub: 'alice', clientId: 'web-app' },
    ]);
  });
});

describe('events of logout and ended sessions', () => {
  it('logout and session_ended once at the end_session endpoint, with the clients of the session', async () => {
    const b = browser(h);
    const { code = '' } = await signIn(b);
    await signIn(b, { client_id: SECOND_APP.client_id });
    const issued = tokens(await exchange(code));
    const [{ sid } = { sid: '' }] = await h.provider.sessions.list('test', 'alice');
    await take();

    const logout = await b.visit(
      `${h.issuer()}/logout?id_token_hint=${issued.id_token as string}&client_id=web-app`,
    );
    expect(logout.status).toBe(200);
    expect(await take()).toEqual([
      {
        ...base(),
        type: 'session_ended',
        sub: 'alice',
        sid,
        reason: 'logout',
        clients: ['web-app', SECOND_APP.client_id],
      },
      { ...base(), type: 'logout', sub: 'alice', sid, clientId: 'web-app' },
    ]);
    // The browser is signed out already: a second logout ends nothing.
    await b.visit(`${h.issuer()}/logout`);
    expect(await take()).toEqual([]);
  });

  it('session_ended with reason api from provider.sessions, replaced when another user signs in', async () => {
    const laptop = browser(h);
    await signIn(laptop);
    h.clock.advance(1);
    const phone = browser(h);
    await signIn(phone);
    await take();
    const [newest, oldest] = await h.provider.sessions.list('test', 'alice');

    expect(await h.provider.sessions.end('test', newest?.sid ?? '')).toBe(true);
    expect(await take()).toEqual([
      expect.objectContaining({ type: 'session_ended', sid: newest?.sid, reason: 'api' }),
    ]);

    const { params } = clientParams(await laptop.signIn({ prompt: 'login' }, 'bob'));
    expect(params.code).toBeDefined();
    const ended = (await take()).filter((event) => event.type === 'session_ended');
    expect(ended).toEqual([
      expect.objectContaining({ sub: 'alice', sid: oldest?.sid, reason: 'replaced' }),
    ]);
  });
});

describe('events of machine clients', () => {
  it('token_issued for client_credentials, with the client as sub and no grant', async () => {
    credentials.push(await h.issueToken('post-client', { scope: 'api:read' }));
    expect(await take()).toEqual([
      {
        ...base(),
        type: 'token_issued',
        grantType: 'client_credentials',
        clientId: 'post-client',
        sub: 'post-client',
        jti: expect.any(String),
        scopes: ['api:read'],
        tokens: ['access_token'],
      },
    ]);
  });

  it('client_authentication_failed names a registered client only, never what was presented', async () => {
    const wrong = 'wrong-secret-0123456789abcdef';
    credentials.push(wrong);
    const request = { grant_type: 'client_credentials', client_secret: wrong };
    await h.post(TOKEN, { ...request, client_id: 'post-client' });
    await h.post(endpointPath('introspect'), {
      token: 'x',
      client_id: 'no-such-client',
      client_secret: wrong,
    });
    expect(await take()).toEqual([
      {
        ...base(),
        type: 'client_authentication_failed',
        clientId: 'post-client',
        presentedAs: 'post',
        endpoint: 'token',
      },
      {
        ...base(),
        type: 'client_authentication_failed',
        presentedAs: 'post',
        endpoint: 'introspect',
      },
    ]);
  });
});

describe('a listener that fails or never finishes', () => {
  it('neither breaks nor holds a request; its errors go to onError', async () => {
    const reported: unknown[] = [];
    const failures = [
      () => {
        throw new Error('listener threw');
      },
      () => Promise.reject(new Error('listener rejected')),
      () => new Promise<void>(() => {}),
    ];
    for (const listener of failures) {
      const failing = await createHarness({
        onEvent: listener,
        onError: (error) => reported.push(error),
      });
      expect(
        (await failing.postAs('post-client', TOKEN, { grant_type: 'client_credentials' })).status,
      ).toBe(200);
    }
    await delivered();
    expect(reported.map((error) => (error as Error).message)).toEqual([
      'listener threw',
      'listener rejected',
    ]);
  });
});
