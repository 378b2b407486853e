import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { rejectRepeated } from './reject-repeated.js';

describe('rejectRepeated', () => {
  it.each([
    [{ scope: 'openid' }, {}],
    [{ scope: ['openid', 'profile'] }, { error: 'invalid_request' }],
  ])('%j → %j', async (params, expected) => {
    expect(await outcomeOf(rejectRepeated, params)).toMatchObject(expected);
  });
});
