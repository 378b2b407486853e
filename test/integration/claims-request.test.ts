import type { InteractionResult, RealmInput } from '@gatehouse-oidc/core';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { TEST_USERS, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, CODE_VERIFIER, clientParams, isInteraction } from './browser.js';
import { createHarness, endpointPath, type Harness, type TestResponse, TOKEN } from './harness.js';

const ALICE = TEST_USERS.alice ?? {};

async function setup(realm: Partial<RealmInput> = {}) {
  const h = await createHarness({
    realm,
    extraClients: [
      {
        client_id: 'express-app',
        client_secret: 'express-app-secret-0123456789',
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uris: [WEB_REDIRECT_URI],
        response_types: ['code', 'id_token'],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'openid profile email',
        claims_in_id_token: true,
      },
    ],
  });
  return { h, b: browser(h) };
}

/** Plays the host through every interaction, answering each with what `answer` returns. */
async function through(
  b: ReturnType<typeof browser>,
  h: Harness,
  response: TestResponse,
  answer: (prompt: string, scopes: string[]) => InteractionResult,
): Promise<TestResponse> {
  let current = response;
  for (let step = 0; step < 3 && isInteraction(h, current); step++) {
    const shown = await b.details(current);
    if (!shown) throw new Error('interaction vanished');
    current = await b.finish(current, answer(shown.prompt, shown.scopes));
  }
  return current;
}

const everything = (prompt: string, scopes: string[]): InteractionResult =>
  prompt === 'login' ? { login: { sub: 'alice' } } : { consent: { scopes } };

async function exchange(h: Harness, code: string, clientId = 'web-app') {
  const response =
    clientId === 'web-app'
      ? await h.postAs('web-app', TOKEN, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: WEB_REDIRECT_URI,
          code_verifier: CODE_VERIFIER,
        })
      : await h.post(TOKEN, {
          grant_type: 'authorization_code',
          code,
          redirect_uri: WEB_REDIRECT_URI,
          code_verifier: CODE_VERIFIER,
          client_id: clientId,
          client_secret: 'express-app-secret-0123456789',
        });
  expect(response.status, response.body).toBe(200);
  return response.json() as {
    access_token: string;
    id_token: string;
    refresh_token: string;
    scope: string;
  };
}

const userinfoOf = async (h: Harness, token: string) =>
  (await h.get(endpointPath('userinfo'), { authorization: `Bearer ${token}` })).json();

describe('the claims request parameter (OIDC Core 1.0 §5.5)', () => {
  it('is announced by discovery', async () => {
    const { h } = await setup();
    const metadata = (await h.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata.claims_parameter_supported).toBe(true);
    expect(metadata.claims_supported).toEqual(expect.arrayContaining(['acr', 'name', 'email']));
  });

  it('releases a userinfo claim asked for by name, after the user consented to its scope', async () => {
    const { h, b } = await setup();
    const claims = JSON.stringify({ userinfo: { name: { essential: true } } });
    const start = await b.authorize({ scope: 'openid', claims });
    const login = await b.finish(start, { login: { sub: 'alice' } });
    // The consent covers the scope that releases the claim: the user sees what is shared.
    expect((await b.details(login))?.scopes).toEqual(['openid', 'profile']);
    const answer = await through(b, h, login, everything);
    const tokens = await exchange(h, clientParams(answer).params.code ?? '');
    // The claim, not the scope: the access token has what was asked for as scopes.
    expect(tokens.scope).toBe('openid');
    const userinfo = await userinfoOf(h, tokens.access_token);
    expect(userinfo.name).toBe(ALICE.name);
    expect(userinfo.given_name).toBeUndefined();
    expect(decodeJwt(tokens.id_token).name).toBeUndefined();
  });

  it('releases nothing the user did not consent to', async () => {
    const { h, b } = await setup();
    const claims = JSON.stringify({ userinfo: { name: null }, id_token: { email: null } });
    const answer = await through(b, h, await b.authorize({ scope: 'openid', claims }), (prompt) =>
      prompt === 'login' ? { login: { sub: 'alice' } } : { consent: { scopes: ['openid'] } },
    );
    const tokens = await exchange(h, clientParams(answer).params.code ?? '');
    expect((await userinfoOf(h, tokens.access_token)).name).toBeUndefined();
    expect(decodeJwt(tokens.id_token).email).toBeUndefined();
  });

  it('puts ID token claims in the ID token, and remembers the consent for the next time', async () => {
    const { h, b } = await setup();
    const claims = JSON.stringify({ id_token: { email: null, email_verified: null } });
    const answer = await through(b, h, await b.authorize({ scope: 'openid', claims }), everything);
    const tokens = await exchange(h, clientParams(answer).params.code ?? '');
    expect(decodeJwt(tokens.id_token)).toMatchObject({
      email: ALICE.email,
      email_verified: true,
    });
    expect(decodeJwt(tokens.id_token).name).toBeUndefined();
    const silent = await b.authorize({ scope: 'openid', claims, prompt: 'none' });
    expect(clientParams(silent).params.code).toEqual(expect.any(String));
  });

  it('puts the userinfo claims in the ID token too when no access token is issued', async () => {
    const { h, b } = await setup();
    const claims = JSON.stringify({ userinfo: { email: null } });
    const answer = await through(
      b,
      h,
      await b.authorize({ response_type: 'id_token', scope: 'openid', claims }),
      everything,
    );
    expect(decodeJwt(clientParams(answer).params.id_token ?? '').email).toBe(ALICE.email);
  });

  it('ignores claims no scope of the client releases, and unknown ones', async () => {
    const { h, b } = await setup();
    const claims = JSON.stringify({
      userinfo: { phone_number: { essential: true }, 'https://example.com/claim': null },
    });
    const start = await b.authorize({ scope: 'openid', claims });
    const login = await b.finish(start, { login: { sub: 'alice' } });
    expect((await b.details(login))?.scopes).toEqual(['openid']);
    const tokens = await exchange(
      h,
      clientParams(await through(b, h, login, everything)).params.code ?? '',
    );
    expect(Object.keys(await userinfoOf(h, tokens.access_token)).sort()).toEqual(
      ['aud', 'exp', 'iat', 'iss', 'nbf', 'sub'].sort(),
    );
  });

  it('travels in a no-store JWT access token to userinfo', async () => {
    const { h, b } = await setup({ access_token_retention_policy: 'no-store' });
    const claims = JSON.stringify({ userinfo: { name: null } });
    const answer = await through(b, h, await b.authorize({ scope: 'openid', claims }), everything);
    const tokens = await exchange(h, clientParams(answer).params.code ?? '');
    expect(decodeJwt(tokens.access_token).userinfo_claims).toEqual(['name']);
    expect((await userinfoOf(h, tokens.access_token)).name).toBe(ALICE.name);
  });

  it.each([
    ['not JSON', '{userinfo'],
    ['an array', '[]'],
    ['a string target', '{"userinfo":"name"}'],
    ['a claim that is neither null nor an object', '{"id_token":{"email":true}}'],
    ['essential that is not a boolean', '{"id_token":{"email":{"essential":"yes"}}}'],
    ['values that are not a list', '{"id_token":{"acr":{"values":"gold"}}}'],
  ])('answers invalid_request to %s', async (_, claims) => {
    const { b } = await setup();
    const { params } = clientParams(await b.authorize({ claims }));
    expect(params).toMatchObject({ error: 'invalid_request', state: 'state-123' });
    expect(params.error_description).not.toContain('{');
  });
});

describe('acr', () => {
  it('comes back in the ID token when acr_values was sent: the login’s, or "0" when it named none', async () => {
    const { h, b } = await setup();
    const unnamed = clientParams(await b.signIn({ acr_values: 'urn:example:gold' })).params;
    expect(decodeJwt((await exchange(h, unnamed.code ?? '')).id_token).acr).toBe('0');

    const start = await b.authorize({ acr_values: 'urn:example:gold', prompt: 'login' });
    expect((await b.details(start))?.acrValues).toEqual(['urn:example:gold']);
    const named = await b.finish(start, { login: { sub: 'alice', acr: 'urn:example:gold' } });
    expect(decodeJwt((await exchange(h, clientParams(named).params.code ?? '')).id_token).acr).toBe(
      'urn:example:gold',
    );
  });

  it('is not in the ID token when nobody asked and the login named none', async () => {
    const { h, b } = await setup();
    const { params } = clientParams(await b.signIn());
    expect(decodeJwt((await exchange(h, params.code ?? '')).id_token).acr).toBeUndefined();
  });

  describe('as an essential claim with values', () => {
    const claims = JSON.stringify({
      id_token: { acr: { essential: true, values: ['urn:example:gold', 'urn:example:platinum'] } },
    });

    it('signs the user in again when the session’s acr is not one of them (step-up)', async () => {
      const { h, b } = await setup();
      const first = await b.authorize({});
      await through(
        b,
        h,
        await b.finish(first, { login: { sub: 'alice', acr: 'urn:example:silver' } }),
        everything,
      );

      const silent = clientParams(await b.authorize({ claims, prompt: 'none' })).params;
      expect(silent.error).toBe('login_required');

      const stepUp = await b.authorize({ claims });
      expect(isInteraction(h, stepUp)).toBe(true);
      expect((await b.details(stepUp))?.acrValues).toEqual([
        'urn:example:gold',
        'urn:example:platinum',
      ]);
      const answer = await b.finish(stepUp, { login: { sub: 'alice', acr: 'urn:example:gold' } });
      const { id_token } = await exchange(h, clientParams(answer).params.code ?? '');
      expect(decodeJwt(id_token).acr).toBe('urn:example:gold');

      // The session now meets it: no login needed.
      const again = clientParams(await b.authorize({ claims, prompt: 'none' })).params;
      expect(again.code).toEqual(expect.any(String));
    });

    it('fails with login_required when the host’s login does not meet it either', async () => {
      const { b } = await setup();
      const start = await b.authorize({ claims });
      const answer = await b.finish(start, { login: { sub: 'alice', acr: 'urn:example:silver' } });
      expect(clientParams(answer).params.error).toBe('login_required');
    });
  });
});

describe('sub requested with a value', () => {
  it('is answered only for that user', async () => {
    const { h, b } = await setup();
    await b.signIn();
    const forBob = JSON.stringify({ id_token: { sub: { value: 'bob' } } });
    expect(clientParams(await b.authorize({ claims: forBob, prompt: 'none' })).params.error).toBe(
      'login_required',
    );
    const forAlice = JSON.stringify({ id_token: { sub: { value: 'alice' } } });
    const { params } = clientParams(await b.authorize({ claims: forAlice, prompt: 'none' }));
    expect(decodeJwt((await exchange(h, params.code ?? '')).id_token).sub).toBe('alice');
  });

  it('asks a login for that user without vouching for them: no hintedSub to show', async () => {
    const { b } = await setup();
    const forBob = JSON.stringify({ id_token: { sub: { value: 'bob' } } });
    const details = await b.details(await b.authorize({ claims: forBob }));
    expect(details).toMatchObject({ prompt: 'login', expectedSub: 'bob' });
    expect(details).not.toHaveProperty('hintedSub');
  });
});

describe('client claims_in_id_token', () => {
  it('puts the claims of the granted scopes in every ID token of the client', async () => {
    const { h, b } = await setup();
    const answer = await through(
      b,
      h,
      await b.authorize({ client_id: 'express-app', scope: 'openid profile email' }),
      everything,
    );
    const tokens = await exchange(h, clientParams(answer).params.code ?? '', 'express-app');
    expect(decodeJwt(tokens.id_token)).toMatchObject({
      sub: 'alice',
      name: ALICE.name,
      email: ALICE.email,
      email_verified: true,
    });
    const refreshed = await h.post(TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: 'express-app',
      client_secret: 'express-app-secret-0123456789',
      scope: 'openid email',
    });
    const narrowed = decodeJwt(refreshed.json().id_token as string);
    expect(narrowed.email).toBe(ALICE.email);
    expect(narrowed.name).toBeUndefined();
  });

  it('is off by default: claims then come from userinfo', async () => {
    const { h, b } = await setup();
    const { params } = clientParams(await b.signIn({ scope: 'openid profile email' }));
    const idToken = decodeJwt((await exchange(h, params.code ?? '')).id_token);
    expect(idToken.name).toBeUndefined();
    expect(idToken.email).toBeUndefined();
  });
});
