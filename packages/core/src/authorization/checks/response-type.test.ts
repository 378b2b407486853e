import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { checkResponseType } from './response-type.js';

describe('checkResponseType', () => {
  it.each([
    [{ response_type: 'code' }, { found: { responseType: 'code' } }],
    [{ response_type: 'id_token code' }, { found: { responseType: 'code id_token' } }],
    [{}, { error: 'invalid_request' }],
    [{ response_type: 'code unknown' }, { error: 'invalid_response_type' }],
  ])('%j → %j', async (params, expected) => {
    expect(await outcomeOf(checkResponseType, params)).toMatchObject(expected);
  });

  it('refuses a type the client is not registered for', async () => {
    const outcome = await outcomeOf(
      checkResponseType,
      { response_type: 'id_token' },
      {},
      'post-client',
    );
    expect(outcome.error).toBe('invalid_response_type');
  });
});
