import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { checkParameterLengths } from './parameter-lengths.js';

describe('checkParameterLengths', () => {
  it.each([
    [{ state: 's'.repeat(2048) }, {}],
    [
      { state: 's'.repeat(2049) },
      { error: 'invalid_request', description: 'state is longer than 2048 characters' },
    ],
    [{ login_hint: 'u'.repeat(513) }, { error: 'invalid_request' }],
    [{ id_token_hint: 'h'.repeat(8193) }, { error: 'invalid_request' }],
  ])('%#', async (params, expected) => {
    expect(await outcomeOf(checkParameterLengths, params)).toMatchObject(expected);
  });
});
