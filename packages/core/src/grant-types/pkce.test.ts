import { describe, expect, it } from 'vitest';
import { oauthErrorOf } from '../../test-support/oauth-errors.js';
import { checkCodeVerifier, s256Challenge } from './pkce.js';

// RFC 7636 Appendix B.
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

describe('s256Challenge', () => {
  it('matches the example of RFC 7636 Appendix B', () => {
    expect(s256Challenge(VERIFIER)).toBe(CHALLENGE);
  });
});

describe('checkCodeVerifier', () => {
  it.each([
    ['the RFC 7636 example', CHALLENGE, VERIFIER],
    ['the shortest verifier (43)', s256Challenge('a'.repeat(43)), 'a'.repeat(43)],
    ['the longest verifier (128)', s256Challenge('Z'.repeat(128)), 'Z'.repeat(128)],
    ['every unreserved character', s256Challenge(`${'x'.repeat(39)}-._~`), `${'x'.repeat(39)}-._~`],
    ['no challenge and no verifier', undefined, undefined],
  ])('%s passes', (_, challenge, verifier) => {
    expect(() => checkCodeVerifier(challenge, verifier)).not.toThrow();
  });

  it.each([
    ['a missing verifier', CHALLENGE, undefined],
    ['a verifier for a code without challenge (downgrade)', undefined, VERIFIER],
    ['another verifier', CHALLENGE, `${VERIFIER.slice(0, -1)}A`],
    ['the challenge sent as verifier (plain)', CHALLENGE, CHALLENGE],
    ['a verifier of 42 characters', s256Challenge('a'.repeat(42)), 'a'.repeat(42)],
    ['a verifier of 129 characters', s256Challenge('a'.repeat(129)), 'a'.repeat(129)],
    ['a reserved character', s256Challenge(`${'a'.repeat(42)}+`), `${'a'.repeat(42)}+`],
    ['a space', s256Challenge(`${'a'.repeat(42)} `), `${'a'.repeat(42)} `],
    ['a non-ASCII character', s256Challenge(`${'a'.repeat(42)}é`), `${'a'.repeat(42)}é`],
    ['a challenge that differs only in case', CHALLENGE.toLowerCase(), VERIFIER],
  ])('%s → invalid_grant', (_, challenge, verifier) => {
    expect(oauthErrorOf(() => checkCodeVerifier(challenge, verifier)).code).toBe('invalid_grant');
  });
});
