import { createPublicKey, type JsonWebKey } from 'node:crypto';
import type { JWK } from 'jose';
import { condition, fail } from '../support/checks.js';

/** The suite's checks of the server's published JWK set (ValidateJwksSequence and friends). */

type Jwks = { keys?: unknown };

function keysOf(jwks: Jwks): Record<string, unknown>[] {
  if (!Array.isArray(jwks.keys)) fail("no 'keys' array in the JWK set");
  for (const key of jwks.keys) {
    if (!key || typeof key !== 'object' || Array.isArray(key)) fail('a key is not a JSON object');
  }
  return jwks.keys as Record<string, unknown>[];
}

/** RFC 7518 §6: the members each key type requires, all base64url. */
const REQUIRED_MEMBERS: Record<string, readonly string[]> = {
  RSA: ['n', 'e'],
  EC: ['crv', 'x', 'y'],
  OKP: ['crv', 'x'],
  oct: ['k'],
};
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const BASE64URL_MEMBERS = ['n', 'e', 'x', 'y', 'd', 'p', 'q', 'dp', 'dq', 'qi', 'k'];
const SUPPORTED_CURVES: Record<string, readonly string[]> = {
  EC: ['P-256', 'P-384', 'P-521', 'secp256k1'],
  OKP: ['Ed25519', 'X25519'],
};
const KNOWN_ALGORITHMS = new Set([
  ...['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'],
  ...['ES256', 'ES384', 'ES512', 'ES256K', 'EdDSA', 'Ed25519'],
  ...['RSA-OAEP', 'RSA-OAEP-256', 'ECDH-ES', 'ECDH-ES+A128KW', 'ECDH-ES+A256KW'],
]);

export const CheckServerKeysIsValid = condition('CheckServerKeysIsValid', (jwks: Jwks) => {
  keysOf(jwks);
});

export const EnsureJwksHasNoPrivateOrSymmetricKeyMaterial = condition(
  'EnsureJwksHasNoPrivateOrSymmetricKeyMaterial',
  (jwks: Jwks) => {
    for (const [index, key] of keysOf(jwks).entries()) {
      if (key.kty === 'oct') fail(`key ${index} is symmetric`);
      const secret = PRIVATE_MEMBERS.find((member) => member in key);
      if (secret) fail(`key ${index} carries private member '${secret}'`);
    }
  },
);

export const ValidateJwksStructure = condition('ValidateJwksStructure', (jwks: Jwks) => {
  for (const [index, key] of keysOf(jwks).entries()) {
    if (typeof key.kty !== 'string') fail(`key ${index} has no kty`);
    const missing = (REQUIRED_MEMBERS[key.kty] ?? []).find(
      (member) => typeof key[member] !== 'string',
    );
    if (missing) fail(`key ${index} (${key.kty}) lacks '${missing}'`);
    const malformed = BASE64URL_MEMBERS.find(
      (member) => member in key && !/^[A-Za-z0-9_-]*$/.test(String(key[member])),
    );
    if (malformed) fail(`key ${index}: '${malformed}' is not unpadded base64url`);
  }
});

const usable = (key: Record<string, unknown>) =>
  typeof key.kty === 'string' &&
  key.kty in REQUIRED_MEMBERS &&
  (SUPPORTED_CURVES[key.kty] === undefined ||
    SUPPORTED_CURVES[key.kty]?.includes(String(key.crv))) &&
  (key.alg === undefined || KNOWN_ALGORITHMS.has(String(key.alg)));

export const ParseUsableJwksKeys = condition('ParseUsableJwksKeys', (jwks: Jwks) => {
  for (const [index, key] of keysOf(jwks).entries()) {
    if (!usable(key) || key.kty === 'oct') continue;
    try {
      createPublicKey({ key: key as JsonWebKey, format: 'jwk' });
    } catch (error) {
      fail(`key ${index} does not parse: ${(error as Error).message}`);
    }
  }
});

export const WarnOnUnusableJwksKeys = condition('WarnOnUnusableJwksKeys', (jwks: Jwks) => {
  const unusable = keysOf(jwks).filter((key) => !usable(key));
  if (unusable.length > 0) fail(`${unusable.length} key(s) of an unsupported type, curve or alg`);
});

export const CheckForKeyIdInServerJWKs = condition('CheckForKeyIdInServerJWKs', (jwks: Jwks) => {
  for (const [index, key] of keysOf(jwks).entries()) {
    if (typeof key.kid !== 'string' || key.kid.trim() === '') fail(`key ${index} has no kid`);
  }
});

export const CheckDistinctKeyIdValueInServerJWKs = condition(
  'CheckDistinctKeyIdValueInServerJWKs',
  (jwks: Jwks) => {
    const seen = new Set<unknown>();
    for (const key of keysOf(jwks)) {
      if (key.kid !== undefined && seen.has(key.kid)) fail(`kid ${String(key.kid)} is used twice`);
      seen.add(key.kid);
    }
  },
);

/** ValidateJwksSequence (FAILURE but the last, a WARNING) as the suite calls it. */
export const VALIDATE_JWKS_SEQUENCE = [
  ['FAILURE', EnsureJwksHasNoPrivateOrSymmetricKeyMaterial],
  ['FAILURE', ValidateJwksStructure],
  ['FAILURE', ParseUsableJwksKeys],
  ['WARNING', WarnOnUnusableJwksKeys],
] as const;

export type ServerJwks = { keys: JWK[] };
