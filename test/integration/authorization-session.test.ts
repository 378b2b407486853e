import { InteractionError } from '@gatehouse/core';
import { decodeJwt } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, CookieJar, clientParams, interactionId, isInteraction } from './browser.js';
import { createHarness, type Harness } from './harness.js';

let h: Harness;
let b: ReturnType<typeof browser>;

beforeEach(async () => {
  h = await createHarness({
    extraClients: [
      {
        client_id: 'trusted-app',
        client_secret: 'trusted-secret-0123456789',
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uris: [WEB_REDIRECT_URI],
        scope: 'openid profile',
        skip_consent: true,
      },
    ],
  });
  b = browser(h);
});

const idTokenOf = async (params: Record<string, string> = {}) =>
  decodeJwt(
    clientParams(await b.signIn({ response_type: 'id_token', ...params })).params.id_token ?? '',
  );

describe('interactions handed to the host', () => {
  it('sends the browser to the host with what its login page needs', async () => {
    const response = await b.authorize({
      ui_locales: 'fr en',
      login_hint: 'alice@example.com',
      max_age: '300',
      acr_values: 'urn:mace:incommon:iap:silver',
    });
    expect(response.status).toBe(302);
    expect(isInteraction(h, response)).toBe(true);
    expect(await h.provider.interactions.details('test', interactionId(response))).toEqual({
      id: interactionId(response),
      realm: 'test',
      prompt: 'login',
      client: { id: 'web-app', name: 'Web App' },
      scopes: ['openid', 'profile'],
      requestedPrompt: [],
      maxAge: 300,
      acrValues: ['urn:mace:incommon:iap:silver'],
      uiLocales: ['fr', 'en'],
      loginHint: 'alice@example.com',
    });
  });

  it('asks for consent after the login, for the signed-in user', async () => {
    const consent = await b.finish(await b.authorize(), { login: { sub: 'alice' } });
    const details = await h.provider.interactions.details('test', interactionId(consent));
    expect(details).toMatchObject({
      prompt: 'consent',
      sub: 'alice',
      scopes: ['openid', 'profile'],
    });
  });

  it('refuses results that do not answer the prompt', async () => {
    const login = await b.authorize();
    const id = interactionId(login);
    await expect(
      h.provider.interactions.finish('test', id, { consent: { scopes: ['openid'] } }),
    ).rejects.toBeInstanceOf(InteractionError);
    await expect(
      h.provider.interactions.finish('test', 'no-such-interaction', { login: { sub: 'alice' } }),
    ).rejects.toBeInstanceOf(InteractionError);
    const consent = await b.finish(login, { login: { sub: 'alice' } });
    await expect(
      h.provider.interactions.finish('test', interactionId(consent), { login: { sub: 'bob' } }),
    ).rejects.toBeInstanceOf(InteractionError);
  });

  it('lets only the browser that started an interaction resume it, once', async () => {
    const login = await b.authorize();
    const resume = await h.provider.interactions.finish('test', interactionId(login), {
      login: { sub: 'alice' },
    });
    const attacker = browser(h, new CookieJar());
    const stolen = await attacker.visit(resume);
    expect(stolen.status).toBe(400);
    expect(stolen.body).toContain('invalid_request');

    expect(isInteraction(h, await b.visit(resume))).toBe(true);
    const replay = await b.visit(resume);
    expect(replay.status).toBe(400);
  });

  it('forgets an interaction left too long', async () => {
    const login = await b.authorize();
    h.clock.advance(901);
    await expect(
      h.provider.interactions.finish('test', interactionId(login), { login: { sub: 'alice' } }),
    ).rejects.toBeInstanceOf(InteractionError);
  });

  it('redirects a login_required result from the host to the client', async () => {
    const response = await b.finish(await b.authorize(), { error: 'login_required' });
    expect(clientParams(response).params.error).toBe('login_required');
  });
});

describe('sessions', () => {
  it('sets an HttpOnly, Secure, SameSite=Lax session cookie scoped to the realm', async () => {
    const consent = await b.finish(await b.authorize(), { login: { sub: 'alice' } });
    const session = consent.cookies?.find((cookie) => cookie.startsWith('gh_session='));
    expect(session).toMatch(
      /^gh_session=[A-Za-z0-9_-]{43}; Path=\/oauth\/test; SameSite=Lax; Max-Age=1209600; HttpOnly; Secure$/,
    );
  });

  it('signs in silently the second time (single sign-on, remembered consent)', async () => {
    await b.signIn();
    const response = await b.authorize({ prompt: 'none' });
    expect(clientParams(response).params.code).toBeDefined();
  });

  it('answers consent_required for prompt=none when consent is missing', async () => {
    await b.signIn();
    const response = await b.authorize({ prompt: 'none', scope: 'openid email' });
    expect(clientParams(response).params.error).toBe('consent_required');
  });

  it('asks for consent again with prompt=consent', async () => {
    await b.signIn();
    const response = await b.authorize({ prompt: 'consent' });
    const details = await h.provider.interactions.details('test', interactionId(response));
    expect(details?.prompt).toBe('consent');
  });

  it('grants only what the user consented to', async () => {
    const login = await b.authorize({ response_type: 'code token', scope: 'openid profile email' });
    const consent = await b.finish(login, { login: { sub: 'alice' } });
    const done = await b.finish(consent, { consent: { scopes: ['openid', 'email', 'admin'] } });
    expect(clientParams(done).params.scope).toBe('openid email');
  });

  it('denies when the user consents to nothing that was asked', async () => {
    const consent = await b.finish(await b.authorize(), { login: { sub: 'alice' } });
    const done = await b.finish(consent, { consent: { scopes: [] } });
    expect(clientParams(done).params.error).toBe('access_denied');
  });

  it('skips consent for a client configured so', async () => {
    const response = await b.signIn({ client_id: 'trusted-app' });
    expect(clientParams(response).params.code).toBeDefined();
    expect(await h.store.writesTo('consent')).toEqual([]);
  });

  it('re-authenticates for prompt=login, and auth_time moves', async () => {
    const first = await idTokenOf();
    h.clock.advance(60);
    const again = await b.authorize({ prompt: 'login', response_type: 'id_token' });
    expect(isInteraction(h, again)).toBe(true);
    const done = await b.finish(again, { login: { sub: 'alice' } });
    const second = decodeJwt(clientParams(done).params.id_token ?? '');
    expect(second.auth_time).toBe((first.auth_time as number) + 60);
  });

  it('re-authenticates when max_age has passed, and not before', async () => {
    await b.signIn();
    h.clock.advance(100);
    expect(clientParams(await b.authorize({ max_age: '100' })).params.code).toBeDefined();
    expect(isInteraction(h, await b.authorize({ max_age: '99' }))).toBe(true);
    expect(clientParams(await b.authorize({ max_age: '99', prompt: 'none' })).params.error).toBe(
      'login_required',
    );
    expect(isInteraction(h, await b.authorize({ max_age: '0' }))).toBe(true);
  });

  it('ends with the realm session lifetime', async () => {
    await b.signIn();
    h.clock.advance(1_209_600);
    expect(clientParams(await b.authorize({ prompt: 'none' })).params.error).toBe('login_required');
  });

  it('issues a new session cookie at every login (no session fixation)', async () => {
    b.jar.set('gh_session', 'planted-by-an-attacker');
    await b.signIn();
    const first = b.jar.get('gh_session');
    expect(first).not.toBe('planted-by-an-attacker');
    await b.signIn({ prompt: 'login' });
    expect(b.jar.get('gh_session')).not.toBe(first);
  });

  it('switches user when someone else signs in at prompt=login', async () => {
    expect((await idTokenOf()).sub).toBe('alice');
    const response = await b.authorize({ prompt: 'login', response_type: 'id_token' });
    const consent = await b.finish(response, { login: { sub: 'bob' } });
    const done = await b.finish(consent, { consent: { scopes: ['openid', 'profile'] } });
    expect(decodeJwt(clientParams(done).params.id_token ?? '').sub).toBe('bob');
  });

  it('carries acr and amr from the login into the id_token', async () => {
    const login = await b.authorize({ response_type: 'id_token' });
    const consent = await b.finish(login, {
      login: { sub: 'alice', acr: 'urn:example:loa:2', amr: ['pwd', 'otp'] },
    });
    const done = await b.finish(consent, { consent: { scopes: ['openid', 'profile'] } });
    expect(decodeJwt(clientParams(done).params.id_token ?? '')).toMatchObject({
      acr: 'urn:example:loa:2',
      amr: ['pwd', 'otp'],
    });
  });

  it('changes session_state when the user signs in again', async () => {
    const first = clientParams(await b.signIn()).params.session_state;
    const second = clientParams(await b.signIn({ prompt: 'login' })).params.session_state;
    expect(first?.split('.')[0]).not.toBe(second?.split('.')[0]);
  });
});
