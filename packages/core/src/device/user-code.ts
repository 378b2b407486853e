import { randomCharacters } from '../crypto/random.js';

/**
 * RFC 8628 §6.1: consonants only (no vowel, so no word is spelled), upper case, no digit to
 * confuse with a letter. 20^8 codes (34.5 bits): guessing is slowed by the throttle of the page
 * that takes them, and a code lives only as long as its request.
 */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
const USER_CODE_LENGTH = 8;
const SHAPE = new RegExp(`^[${USER_CODE_ALPHABET}]{${USER_CODE_LENGTH}}$`);

/** A new user code, as stored: 8 characters, no separator. */
export const newUserCode = (): string => randomCharacters(USER_CODE_ALPHABET, USER_CODE_LENGTH);

/** How the user is shown a code: `XXXX-XXXX`. */
export const formatUserCode = (code: string): string => `${code.slice(0, 4)}-${code.slice(4)}`;

/**
 * What a user typed, as stored: any case, with or without the dash, spaces anywhere (RFC 8628
 * §6.1). Undefined when it cannot be a user code at all.
 */
export function normalizeUserCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  return SHAPE.test(code) ? code : undefined;
}
