import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { checkPrompt } from './prompt.js';

describe('checkPrompt', () => {
  it.each([
    [{}, { found: { prompt: [] } }],
    [{ prompt: 'login consent' }, { found: { prompt: ['login', 'consent'] } }],
    [{ prompt: 'none' }, { found: { prompt: ['none'] } }],
    [{ prompt: 'none login' }, { error: 'invalid_request' }],
    [{ prompt: 'select_account' }, { error: 'invalid_request' }],
  ])('%j → %j', async (params, expected) => {
    expect(await outcomeOf(checkPrompt, params)).toMatchObject(expected);
  });
});
