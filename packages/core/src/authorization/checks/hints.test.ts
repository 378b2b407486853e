import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { readHints } from './hints.js';

describe('readHints', () => {
  it.each([
    [{}, {}],
    [
      { ui_locales: 'fr  en', acr_values: 'gold', login_hint: 'ada' },
      { uiLocales: ['fr', 'en'], acrValues: ['gold'], loginHint: 'ada' },
    ],
    [{ ui_locales: ' ' }, {}],
  ])('%j → %j', async (params, found) => {
    expect(await outcomeOf(readHints, params)).toEqual({ found });
  });
});
