import { describe, expect, it } from 'vitest';
import { oauthErrorOf } from '../../test-support/oauth-errors.js';
import { parseUrlEncoded } from '../http/form.js';
import { requiredToken } from './token-parameter.js';

describe('requiredToken (introspection and revocation)', () => {
  it.each([
    ['token=abc', 'abc'],
    ['token=abc&token_type_hint=access_token', 'abc'],
    ['token=abc&token_type_hint=refresh_token', 'abc'],
    ['token=abc&token_type_hint=', 'abc'],
    // A hint the server does not know is ignored (RFC 7009 §2.1, RFC 7662 §2.1).
    ['token=abc&token_type_hint=id_token', 'abc'],
    ['token=abc&token_type_hint=ACCESS_TOKEN', 'abc'],
  ])('%s → %s', (form, token) => {
    expect(requiredToken(parseUrlEncoded(form))).toBe(token);
  });

  it.each(['', 'token=', 'token_type_hint=access_token'])('%j → invalid_request', (form) => {
    const error = oauthErrorOf(() => requiredToken(parseUrlEncoded(form)));
    expect([error.code, error.status]).toEqual(['invalid_request', 400]);
  });
});
