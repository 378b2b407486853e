import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { checkMaxAge } from './max-age.js';

describe('checkMaxAge', () => {
  it.each([
    [{}, { found: {} }],
    [{ max_age: '0' }, { found: { maxAge: 0 } }],
    [{ max_age: '3600' }, { found: { maxAge: 3600 } }],
    [{ max_age: '-1' }, { error: 'invalid_request' }],
    [{ max_age: '1e3' }, { error: 'invalid_request' }],
  ])('%j → %j', async (params, expected) => {
    expect(await outcomeOf(checkMaxAge, params)).toMatchObject(expected);
  });
});
