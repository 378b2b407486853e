import { escapeHtml } from '@gatehouse-oidc/core';
import { describe, expect, it } from 'vitest';
import { CsrfTokens, readCookie } from '../../packages/server/src/login/csrf.js';
import { redirectSources } from '../../packages/server/src/login/form-targets.js';
import type { ScryptHash } from '../../packages/server/src/login/password.js';
import { UserDirectory } from '../../packages/server/src/login/user-directory.js';
import { pickLocale } from '../../packages/server/src/pages/i18n.js';
import { html, SafeHtml } from '../../packages/server/src/pages/layout.js';
import { BOB_PASSWORD_HASH } from './support.js';

const HTTP = false;
const HTTPS = true;
const SECRET = 'cookie-secret-0123456789abcdef0123456789';

describe('pickLocale', () => {
  it.each([
    [undefined, 'en'],
    [[], 'en'],
    [['fr'], 'fr'],
    [['FR-ca'], 'fr'],
    [['de', 'fr', 'en'], 'fr'],
    [['en-GB', 'fr'], 'en'],
    [['de', 'it'], 'en'],
  ])('picks from %j: %s', (tags, locale) => {
    expect(pickLocale(tags)).toBe(locale);
  });
});

describe('html', () => {
  it('escapes every interpolation except SafeHtml, arrays included', () => {
    const item = (text: string) => html`<li>${text}</li>`;
    expect(
      html`<p title="${'"&\''}">${['<b>', item('<i>')]}${new SafeHtml('<br>')}</p>`.value,
    ).toBe('<p title="&quot;&amp;&#39;">&lt;b&gt;<li>&lt;i&gt;</li><br></p>');
    expect(escapeHtml('<a href="x">&\'')).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;');
  });
});

describe('CsrfTokens', () => {
  it('gives a new browser a 256-bit key and keeps a valid one', () => {
    const csrf = new CsrfTokens(SECRET);
    const first = csrf.browserKey(undefined, HTTP);
    expect(first.value).toMatch(/^[\w-]{43}$/);
    expect(first.setCookie).toBe(`gh_csrf=${first.value}; Path=/; HttpOnly; SameSite=Lax`);
    expect(csrf.browserKey(`a=b; gh_csrf=${first.value}`, HTTP)).toEqual({ value: first.value });
    expect(csrf.browserKey('gh_csrf=short', HTTP).setCookie).toBeDefined();
  });

  it('binds a token to the secret, the realm, the interaction and the browser', () => {
    const csrf = new CsrfTokens(SECRET);
    const key = csrf.browserKey(undefined, HTTP).value;
    const cookie = `gh_csrf=${key}`;
    const token = csrf.token(key, 'demo', 'i1');
    expect(csrf.verify(cookie, HTTP, 'demo', 'i1', token)).toBe(true);
    expect(csrf.verify(cookie, HTTP, 'demo', 'i2', token)).toBe(false);
    expect(csrf.verify(cookie, HTTP, 'staff', 'i1', token)).toBe(false);
    expect(csrf.verify(`gh_csrf=${'A'.repeat(43)}`, HTTP, 'demo', 'i1', token)).toBe(false);
    expect(csrf.verify(undefined, HTTP, 'demo', 'i1', token)).toBe(false);
    expect(csrf.verify(cookie, HTTP, 'demo', 'i1', null)).toBe(false);
    expect(csrf.verify(cookie, HTTP, 'demo', 'i1', `${token}=`)).toBe(false);
    // Same secret, same token (several instances); another secret, another token.
    expect(new CsrfTokens(SECRET).token(key, 'demo', 'i1')).toBe(token);
    expect(new CsrfTokens(`${SECRET}x`).verify(cookie, HTTP, 'demo', 'i1', token)).toBe(false);
    // Without a configured secret, a random one.
    expect(new CsrfTokens(undefined).verify(cookie, HTTP, 'demo', 'i1', token)).toBe(false);
  });

  it('names the cookie __Host-gh_csrf on https and reads only that name there', () => {
    const csrf = new CsrfTokens(SECRET);
    const { value, setCookie } = csrf.browserKey(undefined, HTTPS);
    expect(setCookie).toBe(`__Host-gh_csrf=${value}; Path=/; HttpOnly; SameSite=Lax; Secure`);
    const token = csrf.token(value, 'demo', 'i1');
    expect(csrf.verify(`__Host-gh_csrf=${value}`, HTTPS, 'demo', 'i1', token)).toBe(true);
    // A plain gh_csrf may have been planted over http by a neighbour: on https it is no key.
    expect(csrf.verify(`gh_csrf=${value}`, HTTPS, 'demo', 'i1', token)).toBe(false);
    expect(csrf.browserKey(`gh_csrf=${value}`, HTTPS).setCookie).toBeDefined();
    expect(csrf.verify(`__Host-gh_csrf=${value}`, HTTP, 'demo', 'i1', token)).toBe(false);
  });

  it('reads the first cookie of a name', () => {
    expect(readCookie('x=1; gh_csrf=a; gh_csrf=b', 'gh_csrf')).toBe('a');
    expect(readCookie('gh_csrfx=1', 'gh_csrf')).toBeUndefined();
  });
});

describe('redirectSources', () => {
  it('keeps the origins of web redirect URIs and the schemes of native ones', () => {
    expect(
      redirectSources([
        'https://app.example.com/cb',
        'https://app.example.com/other',
        'http://127.0.0.1:8080/callback',
        'com.example.app:/oauth',
      ]),
    ).toEqual(['https://app.example.com', 'http://127.0.0.1:8080', 'com.example.app:']);
  });
});

describe('UserDirectory', () => {
  const realm = {
    name: 'demo',
    users: [
      { sub: 'bob-sub', username: 'bob', password_hash: BOB_PASSWORD_HASH, claims: {} },
      {
        sub: 'carol-sub',
        username: 'carol',
        password_hash: BOB_PASSWORD_HASH,
        claims: { name: 'Carol' },
      },
    ],
  };
  const usersOf = (name: string) => (name === realm.name ? realm.users : undefined);

  it('checks an unknown username against a hash of the realm’s usual cost', async () => {
    const checked: ScryptHash[] = [];
    const users = new UserDirectory(usersOf, {
      verify: async (_password, hash) => {
        checked.push(hash);
        return false;
      },
    });
    expect(await users.authenticate('demo', 'nobody', 'bob-password')).toBeUndefined();
    expect(await users.authenticate('demo', 'bob', 'bob-password')).toBeUndefined();
    const [unknown, known] = checked;
    expect(unknown).toMatchObject({ N: 16384, r: 8, p: 1 });
    expect(unknown?.key.length).toBe(known?.key.length);
    expect(unknown?.salt).not.toEqual(known?.salt);
  });

  it('finds users by realm and subject (the provider’s Accounts)', async () => {
    const users = new UserDirectory(usersOf);
    expect(await users.findAccount('demo', 'carol-sub')).toEqual({
      sub: 'carol-sub',
      claims: { name: 'Carol' },
    });
    expect(await users.findAccount('demo', 'carol')).toBeUndefined();
    expect(await users.findAccount('other', 'carol-sub')).toBeUndefined();
    expect(users.displayName('demo', 'carol-sub')).toBe('Carol');
    expect(users.displayName('demo', 'bob-sub')).toBe('bob');
  });

  it('matches usernames exactly and needs the right password', async () => {
    const users = new UserDirectory(usersOf);
    expect(await users.authenticate('demo', 'bob', 'bob-password')).toBe('bob-sub');
    expect(await users.authenticate('demo', 'Bob', 'bob-password')).toBeUndefined();
    expect(await users.authenticate('other', 'bob', 'bob-password')).toBeUndefined();
  });
});
