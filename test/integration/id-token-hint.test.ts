import { decodeJwt, generateKeyPair, SignJWT, UnsecuredJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { browser, clientParams, isInteraction } from './browser.js';
import { createHarness, type Harness } from './harness.js';
import { userSessions } from './user-session.js';

let h: Harness;
let b: ReturnType<typeof browser>;
let users: Awaited<ReturnType<typeof userSessions>>;

beforeEach(async () => {
  h = await createHarness({
    otherRealms: [
      {
        name: 'other',
        clients: [{ client_id: 'web-app', client_secret: 'x'.repeat(20), grant_types: [] }],
      },
    ],
  });
  b = browser(h);
  users = await userSessions(h);
  // Alice is signed in and has consented: every request below could be answered silently.
  clientParams(await b.signIn());
});

const silently = (params: Record<string, string>) => b.authorize({ prompt: 'none', ...params });

describe('id_token_hint at the authorization endpoint', () => {
  it('answers silently when the hint names the signed-in user, expired or not', async () => {
    const hint = await users.idToken();
    const { params } = clientParams(await silently({ id_token_hint: hint }));
    expect(params.code).toEqual(expect.any(String));
    h.clock.advance(7 * 86_400);
    const later = clientParams(await silently({ id_token_hint: hint }));
    expect(later.params.code).toEqual(expect.any(String));
  });

  it('answers login_required with prompt=none when the hint names another user', async () => {
    const { params } = clientParams(
      await silently({ id_token_hint: await users.idToken({ sub: 'bob' }) }),
    );
    expect(params).toMatchObject({ error: 'login_required', state: 'state-123' });
    expect(params.code).toBeUndefined();
  });

  it('asks for the hinted user otherwise, and answers for them once they signed in', async () => {
    const response = await b.authorize({ id_token_hint: await users.idToken({ sub: 'bob' }) });
    expect(isInteraction(h, response)).toBe(true);
    expect(await b.details(response)).toMatchObject({
      prompt: 'login',
      expectedSub: 'bob',
      hintedSub: 'bob',
    });
    let answer = await b.finish(response, { login: { sub: 'bob' } });
    const consent = await b.details(answer);
    answer = await b.finish(answer, { consent: { scopes: consent?.scopes ?? [] } });
    expect(clientParams(answer).params.code).toEqual(expect.any(String));
  });

  it('answers login_required when the host signs in someone else than the hinted user', async () => {
    const response = await b.authorize({ id_token_hint: await users.idToken({ sub: 'bob' }) });
    const answer = await b.finish(response, { login: { sub: 'alice' } });
    expect(clientParams(answer).params.error).toBe('login_required');
  });

  it('accepts an ID token signed with a key a rotation has since retired', async () => {
    const hint = await users.idToken();
    await h.provider.rotateKeys('test');
    const { params } = clientParams(await silently({ id_token_hint: hint }));
    expect(params.code).toEqual(expect.any(String));
  });

  describe('refuses with invalid_request, whatever the session', () => {
    const refused = async (hint: string) => {
      for (const prompt of ['none', 'login']) {
        const { params } = clientParams(await b.authorize({ prompt, id_token_hint: hint }));
        expect(params).toMatchObject({ error: 'invalid_request', state: 'state-123' });
      }
    };

    it('garbage', () => refused('not-a-jwt'));

    it('alg none', async () => {
      const claims = decodeJwt(await users.idToken());
      await refused(new UnsecuredJWT(claims).encode());
    });

    it('a token signed with a key of nobody here', async () => {
      const { privateKey } = await generateKeyPair('ES256');
      const claims = decodeJwt(await users.idToken());
      await refused(
        await new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).sign(privateKey),
      );
    });

    it('an ID token of another realm', async () => {
      const other = await userSessions(h, 'other');
      await refused(await other.idToken());
    });

    it('an ID token issued to another client', async () => {
      await refused(await users.idToken({ clientId: 'native-client' }));
    });

    it('an access token of the realm', async () => {
      await refused(await users.accessToken());
    });
  });
});

describe('login_hint', () => {
  it('reaches the host’s interaction as it was sent', async () => {
    const response = await b.authorize({ prompt: 'login', login_hint: 'alice@example.com' });
    expect(await b.details(response)).toMatchObject({ loginHint: 'alice@example.com' });
  });
});
