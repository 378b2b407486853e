import { describe, expect, it } from 'vitest';
import { pickLocale } from './i18n.js';

describe('pickLocale', () => {
  it.each([
    [undefined, 'en'],
    [[], 'en'],
    [['fr'], 'fr'],
    [['FR-ca'], 'fr'],
    [['de', 'fr', 'en'], 'fr'],
    [['en-GB', 'fr'], 'en'],
    [['de', 'it'], 'en'],
  ])('picks from %j: %s', (tags, locale) => {
    expect(pickLocale(tags)).toBe(locale);
  });
});
