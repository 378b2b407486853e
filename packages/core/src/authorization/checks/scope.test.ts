import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { checkScope } from './scope.js';

describe('checkScope', () => {
  it.each([
    ['code', {}, { found: { scopes: ['openid', 'profile'] } }],
    ['code', { scope: 'openid email' }, { found: { scopes: ['openid', 'email'] } }],
    ['code', { scope: 'openid admin' }, { error: 'invalid_scope' }],
    ['id_token', { scope: 'profile' }, { error: 'invalid_scope' }],
    [undefined, { scope: 'profile' }, { found: { scopes: ['profile'] } }],
  ] as const)('%s %j → %j', async (responseType, params, expected) => {
    const found = responseType === undefined ? {} : { responseType };
    expect(await outcomeOf(checkScope, params, found)).toMatchObject(expected);
  });
});
