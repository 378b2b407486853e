import { describe, expect, it } from 'vitest';
import { isSafeDescription, OAuthError, safeDescription } from './oauth-error.js';

describe('error descriptions', () => {
  it('keeps a description that is already within the RFC 6749 character set', () => {
    const text = "the code is invalid, expired or issued to another client; see [x] {y} ~'!";
    expect(safeDescription(text)).toBe(text);
    expect(isSafeDescription(text)).toBe(true);
  });

  it.each([
    ['a "quoted" word', "a 'quoted' word"],
    ['a \\ backslash', 'a / backslash'],
    ['José\u2019s résumé', 'Jos??s r?sum?'],
    ['line\nbreak\ttab\u0000nul', 'line?break?tab?nul'],
  ])('maps %j into the character set', (input, output) => {
    expect(safeDescription(input)).toBe(output);
    expect(isSafeDescription(output)).toBe(true);
  });

  it('applies to every OAuthError, whoever wrote the description (a host, an adapter)', () => {
    const error = new OAuthError('access_denied', 'le refus de l’utilisateur "x"');
    expect(error.description).toBe("le refus de l?utilisateur 'x'");
    expect(error.message).toBe(`access_denied: ${error.description}`);
    expect(new OAuthError('server_error').description).toBeUndefined();
  });
});
