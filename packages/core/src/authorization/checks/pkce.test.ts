import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { checkPkce } from './pkce.js';

const CHALLENGE = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

describe('checkPkce', () => {
  it.each([
    [
      'code',
      { code_challenge: CHALLENGE, code_challenge_method: 'S256' },
      { found: { codeChallenge: CHALLENGE } },
    ],
    ['code', {}, { error: 'invalid_code_challenge' }],
    ['code', { code_challenge: CHALLENGE }, { error: 'invalid_code_challenge_method' }],
    [
      'code',
      { code_challenge: CHALLENGE, code_challenge_method: 'plain' },
      { error: 'invalid_code_challenge_method' },
    ],
    [
      'code',
      { code_challenge: 'short', code_challenge_method: 'S256' },
      { error: 'invalid_code_challenge' },
    ],
    ['id_token', {}, { found: {} }],
  ] as const)('%s %j → %j', async (responseType, params, expected) => {
    expect(await outcomeOf(checkPkce, params, { responseType })).toMatchObject(expected);
  });
});
