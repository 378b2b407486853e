import { describe, expect, it } from 'vitest';
import { oauthErrorOf } from '../../test-support/oauth-errors.js';
import { bearerChallenge, bearerError, bearerToken } from './bearer.js';

const ISSUER = 'https://id.example.com/oauth/test';
const request = (authorization?: string) => ({
  method: 'GET',
  path: '/',
  query: '',
  headers: { authorization },
});

describe('bearerToken', () => {
  it.each([
    ['Bearer abc.def-ghi_jkl~mno+pqr/stu', 'abc.def-ghi_jkl~mno+pqr/stu'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['Bearer   abc', 'abc'],
    ['Bearer abc==', 'abc=='],
  ])('reads %j', (header, token) => {
    expect(bearerToken(request(header), ISSUER)).toBe(token);
  });

  it.each([
    ['no Authorization header', undefined],
    ['another scheme', 'Basic YTpi'],
    ['a scheme that merely starts with Bearer', 'Bearerx abc'],
  ])('finds no credentials in %s', (_, header) => {
    expect(bearerToken(request(header), ISSUER)).toBeUndefined();
  });

  it.each([
    ['no token', 'Bearer'],
    ['only spaces', 'Bearer   '],
    ['two tokens', 'Bearer abc def'],
    ['two credentials', 'Bearer abc, Bearer def'],
    ['a character outside b64token', 'Bearer ab"c'],
    ['padding in the middle', 'Bearer ab=c'],
  ])('refuses a Bearer header with %s as invalid_request', (_, header) => {
    const error = oauthErrorOf(() => bearerToken(request(header), ISSUER));
    expect({ code: error.code, status: error.status }).toEqual({
      code: 'invalid_request',
      status: 400,
    });
    expect(error.headers['www-authenticate']).toMatch(
      /^Bearer realm="[^"]+", error="invalid_request", error_description="[^"]+"$/,
    );
  });
});

describe('bearerChallenge', () => {
  it('has only the realm when the request carried no credentials (RFC 6750 §3.1)', () => {
    expect(bearerChallenge(ISSUER)).toBe(`Bearer realm="${ISSUER}"`);
  });

  it('adds the error, its description and the scope', () => {
    expect(
      bearerChallenge(ISSUER, {
        code: 'insufficient_scope',
        description: 'needs openid',
        scope: 'openid',
      }),
    ).toBe(
      `Bearer realm="${ISSUER}", error="insufficient_scope", error_description="needs openid", scope="openid"`,
    );
  });

  it('cannot be broken out of: quotes and backslashes escaped, control characters replaced', () => {
    expect(
      bearerChallenge(ISSUER, { code: 'invalid_token', description: 'a"b\\c\r\nSet-Cookie: x' }),
    ).toBe(
      `Bearer realm="${ISSUER}", error="invalid_token", error_description="a\\"b\\\\c??Set-Cookie: x"`,
    );
  });
});

describe('bearerError', () => {
  it.each([
    ['invalid_request', 400],
    ['invalid_token', 401],
    ['insufficient_scope', 403],
  ] as const)('answers %s with %i and its challenge', (code, status) => {
    const error = bearerError(ISSUER, code, 'why');
    expect({ code: error.code, status: error.status, description: error.description }).toEqual({
      code,
      status,
      description: 'why',
    });
    expect(error.headers).toEqual({
      'www-authenticate': `Bearer realm="${ISSUER}", error="${code}", error_description="why"`,
    });
  });
});
