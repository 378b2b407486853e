import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode, wireCode } from './codes.js';

const CODES = Object.keys(ERROR_CODES) as ErrorCode[];

/** The decision of docs/errors.md, restated: a change to the registry must change this too. */
const REGISTERED_FOR_INTERFACE_CODES: ReadonlyArray<[ErrorCode, string]> = [
  ['invalid_client_id', 'invalid_request'],
  ['invalid_redirect_uri', 'invalid_request'],
  ['invalid_response_type', 'unsupported_response_type'],
  ['invalid_response_mode', 'invalid_request'],
  ['invalid_code_challenge', 'invalid_request'],
  ['invalid_code_challenge_method', 'invalid_request'],
  ['nonce_required', 'invalid_request'],
];

describe('wireCode', () => {
  it.each(CODES)('sends %s as it is in the interface dialect', (code) => {
    expect(wireCode(code, 'interface')).toBe(code);
  });

  it.each(REGISTERED_FOR_INTERFACE_CODES)(
    'sends the interface code %s as %s in the registered dialect',
    (code, registered) => {
      expect(wireCode(code, 'registered')).toBe(registered);
    },
  );

  it('changes no other code in the registered dialect', () => {
    const interfaceCodes = new Set(REGISTERED_FOR_INTERFACE_CODES.map(([code]) => code));
    for (const code of CODES.filter((code) => !interfaceCodes.has(code))) {
      expect(wireCode(code, 'registered')).toBe(code);
    }
  });
});

describe('ERROR_CODES', () => {
  it('gives the interface codes, and only those, a registered counterpart', () => {
    const withCounterpart = CODES.filter((code) => ERROR_CODES[code].registered !== undefined);
    expect(withCounterpart.sort()).toEqual(REGISTERED_FOR_INTERFACE_CODES.map(([c]) => c).sort());
    for (const code of withCounterpart) {
      expect(ERROR_CODES[code].definedIn).toMatch(/^docs\/interface\.md §7\.[12]($|; )/);
    }
  });

  it('maps an interface code to a registered code that the authorization endpoint may send', () => {
    for (const [code, registered] of REGISTERED_FOR_INTERFACE_CODES) {
      const counterpart = ERROR_CODES[registered as ErrorCode];
      expect(counterpart.registered, registered).toBeUndefined();
      expect(counterpart.authorization, `${code} -> ${registered}`).toBeDefined();
    }
  });

  it('shows the two codes of an untrusted redirect target at the provider', () => {
    expect(ERROR_CODES.invalid_client_id.authorization).toBe('shown');
    expect(ERROR_CODES.invalid_redirect_uri.authorization).toBe('shown');
  });

  it.each(CODES)('gives %s an error status', (code) => {
    expect(ERROR_CODES[code].status).toBeGreaterThanOrEqual(400);
    expect(ERROR_CODES[code].status).toBeLessThan(600);
  });
});
