import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { checkNonce } from './nonce.js';

describe('checkNonce', () => {
  it.each([
    ['code', {}, { found: {} }],
    ['code', { nonce: 'n' }, { found: { nonce: 'n' } }],
    ['code id_token', {}, { error: 'nonce_required' }],
    ['id_token', { nonce: 'n' }, { found: { nonce: 'n' } }],
  ] as const)('%s %j → %j', async (responseType, params, expected) => {
    expect(await outcomeOf(checkNonce, params, { responseType })).toMatchObject(expected);
  });
});
