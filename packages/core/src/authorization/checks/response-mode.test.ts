import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { checkResponseMode } from './response-mode.js';

describe('checkResponseMode', () => {
  it.each([
    ['code', {}, { found: { responseMode: 'query' } }],
    ['code id_token', {}, { found: { responseMode: 'fragment' } }],
    ['code', { response_mode: 'form_post' }, { found: { responseMode: 'form_post' } }],
    ['code', { response_mode: 'web_message' }, { error: 'invalid_response_mode' }],
    ['id_token token', { response_mode: 'query' }, { error: 'invalid_response_mode' }],
  ] as const)('%s %j → %j', async (responseType, params, expected) => {
    expect(await outcomeOf(checkResponseMode, params, { responseType })).toMatchObject(expected);
  });
});
