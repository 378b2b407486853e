import { describe, expect, it } from 'vitest';
import { CsrfTokens, readCookie } from './csrf.js';

const HTTP = false;
const HTTPS = true;
const SECRET = 'cookie-secret-0123456789abcdef0123456789';

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
