import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { checkStoredSize, MAX_STORED_REQUEST_CHARS } from './stored-size.js';

describe('checkStoredSize', () => {
  it.each([
    ['a small request', { state: 's' }, undefined],
    ['escaped characters counted as stored', { state: '\u0001'.repeat(700) }, 'invalid_request'],
    ['one too many', { state: 's'.repeat(MAX_STORED_REQUEST_CHARS) }, 'invalid_request'],
  ])('%s', async (_, found, error) => {
    expect((await outcomeOf(checkStoredSize, {}, found)).error).toBe(error);
  });
});
