import {
  base64url,
  type CryptoKey,
  errors,
  type JWSHeaderParameters,
  type JWTClaimVerificationOptions,
  type JWTPayload,
  type JWTVerifyGetKey,
  UnsecuredJWT,
} from 'jose';
import { isVerificationAlgorithm, type JwsVerifier } from '../keys/jws-verifier.js';
import { cryptoKeyVerifies } from '../keys/webcrypto-algorithms.js';

export interface VerifyJwtOptions extends JWTClaimVerificationOptions {
  /** The header's `alg` must be one of these (and asymmetric: `none` and HMAC never verify here). */
  readonly algorithms: readonly string[];
}

export interface VerifiedJwt {
  readonly payload: JWTPayload;
  readonly protectedHeader: JWSHeaderParameters;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * jose's `jwtVerify` for a compact JWS signed with a public key, but with the signature checked
 * by `verifier` (jose's web build checks it only through WebCrypto, which on Node.js costs twice
 * `node:crypto`'s CPU). The same errors as jose's, in the same order: a malformed token or
 * header, an `alg` not allowed, the key from `key` (or its resolver, with jose's own key-set
 * errors) unfit for `alg` (a TypeError, as jose), a bad signature, then jose's own claim checks
 * with `options`. One difference: any `crit` is refused (jose understands `b64`), as for the
 * realm's own tokens.
 */
export async function verifyJwt(
  verifier: JwsVerifier,
  token: string,
  key: CryptoKey | JWTVerifyGetKey,
  options: VerifyJwtOptions,
): Promise<VerifiedJwt> {
  const segments = token.split('.');
  if (segments.length !== 3) throw new errors.JWSInvalid('Invalid Compact JWS');
  const [encodedHeader = '', encodedPayload = '', encodedSignature = ''] = segments;
  const header = decodeHeader(encodedHeader);
  if (header.crit !== undefined)
    throw new errors.JOSENotSupported('no "crit" extension is supported');
  const { alg } = header;
  if (typeof alg !== 'string' || alg === '')
    throw new errors.JWSInvalid('JWS "alg" (Algorithm) Header Parameter missing or invalid');
  if (!options.algorithms.includes(alg) || !isVerificationAlgorithm(alg))
    throw new errors.JOSEAlgNotAllowed('"alg" (Algorithm) Header Parameter value not allowed');
  const verificationKey =
    typeof key === 'function'
      ? await key(
          { ...header, alg },
          {
            payload: encodedPayload,
            protected: encodedHeader,
            signature: encodedSignature,
          },
        )
      : key;
  if (!isCryptoKey(verificationKey) || !cryptoKeyVerifies(verificationKey, alg))
    throw new TypeError(`the key is not a public key for ${alg}`);
  const signature = decodeSegment(encodedSignature, 'signature');
  if (!BASE64URL.test(encodedPayload))
    throw new errors.JWSInvalid('Failed to base64url decode the payload');
  const signingInput = encoder.encode(`${encodedHeader}.${encodedPayload}`);
  if (!(await verifier.verify(alg, verificationKey, signingInput, signature)))
    throw new errors.JWSSignatureVerificationFailed();
  return { payload: validatedClaims(header, encodedPayload, options), protectedHeader: header };
}

/**
 * jose's claim checks (`typ`, `iss`, `sub`, `aud`, times, required claims) on a payload whose
 * signature has been verified. jose runs them only after its own signature check; its unsecured
 * JWT decoder runs the same code after none, so the payload is handed to it under a header that
 * keeps only what the checks read, the `typ`.
 */
function validatedClaims(
  header: JWSHeaderParameters,
  encodedPayload: string,
  options: JWTClaimVerificationOptions,
): JWTPayload {
  return UnsecuredJWT.decode(`${unsecuredHeader(header.typ)}.${encodedPayload}.`, options).payload;
}

/** The last unsecured header made, by `typ`: the tokens one caller checks share theirs. */
let lastUnsecuredHeader: { readonly typ: unknown; readonly encoded: string } | undefined;

/** Encoding it again cost as much as a third of the claim checks (2 of 7 µs). */
function unsecuredHeader(typ: unknown): string {
  if (lastUnsecuredHeader === undefined || lastUnsecuredHeader.typ !== typ) {
    const encoded = base64url.encode(JSON.stringify({ alg: 'none', typ }));
    lastUnsecuredHeader = { typ, encoded };
  }
  return lastUnsecuredHeader.encoded;
}

function decodeHeader(segment: string): JWSHeaderParameters {
  let header: unknown;
  try {
    header = JSON.parse(decoder.decode(decodeSegment(segment, 'protected header')));
  } catch {
    throw new errors.JWSInvalid('JWS Protected Header is invalid');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header))
    throw new errors.JWSInvalid('JWS Protected Header is invalid');
  return header as JWSHeaderParameters;
}

function decodeSegment(segment: string, what: string): Uint8Array<ArrayBuffer> {
  try {
    if (BASE64URL.test(segment)) return base64url.decode(segment) as Uint8Array<ArrayBuffer>;
  } catch {
    // Reported below.
  }
  throw new errors.JWSInvalid(`Failed to base64url decode the ${what}`);
}

/** As jose tells one: a CryptoKey of any realm (a worker's, a test environment's). */
const isCryptoKey = (key: unknown): key is CryptoKey =>
  (key as { [Symbol.toStringTag]?: unknown } | null)?.[Symbol.toStringTag] === 'CryptoKey';
