import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { checkClaims } from './claims.js';

describe('checkClaims', () => {
  it.each([
    [{}, ['openid'], { found: {} }],
    [
      { claims: '{"userinfo":{"email":null}}' },
      ['openid'],
      { found: { claims: { userinfo: ['email'], id_token: [] }, claimScopes: ['email'] } },
    ],
    [{ claims: 'not json' }, ['openid'], { error: 'invalid_request' }],
    [{ claims: 'not json' }, ['profile'], { found: {} }],
  ])('%j %j → %j', async (params, scopes, expected) => {
    expect(await outcomeOf(checkClaims, params, { scopes })).toMatchObject(expected);
  });
});
