import { base64url, type JWTPayload } from 'jose';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../config/realm.js';
import { nowSeconds, type RealmContext } from '../context.js';
import { keyFitsAlgorithm } from '../keys/key-fits-algorithm.js';
import type { PublicJwk } from '../keys/signing-key.js';
import { cryptoKeyVerifies } from '../keys/webcrypto-algorithms.js';
import { importPublicKey } from '../keys/webcrypto-verifier.js';

export interface VerifyRealmJwtOptions {
  typ: string;
  /** Accept an expired token (a CIBA id_token_hint may be expired); the signature still counts. */
  allowExpired?: boolean;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * Verifies a compact JWS this realm signed, as jose's `jwtVerify` would with the realm's key set
 * but that any `crit` is refused (jose understands `b64`). So: a header naming one of the realm's
 * algorithms and no `crit` extension, `typ` as asked, a signature by the one published key of
 * that `alg` and `kid` (each key pinned to its own `alg`, of the algorithm's type and curve, RSA
 * of at least 2048 bits; so `alg: none`, a key of another realm or of nobody fail), a JSON object
 * payload issued by the realm, `iat`, `nbf` and `exp` well-formed and `nbf`/`exp` met. The
 * signature goes through the provider's `JwsVerifier` (node-crypto's checks it synchronously on
 * `node:crypto`). Undefined for anything that does not verify; rejects only when the verifier
 * itself fails, which the endpoint answers as a server error.
 */
export async function verifyRealmJwt(
  context: RealmContext,
  token: string,
  options: VerifyRealmJwtOptions,
): Promise<JWTPayload | undefined> {
  const segments = token.split('.');
  if (segments.length !== 3) return undefined;
  const [encodedHeader = '', encodedPayload = '', encodedSignature = ''] = segments;
  const header = decodeJsonObject(encodedHeader);
  if (!header || header.crit !== undefined || !isSigningAlgorithm(header.alg)) return undefined;
  if (typeof header.typ !== 'string' || mediaType(header.typ) !== mediaType(options.typ))
    return undefined;
  const signature = decodeBase64url(encodedSignature);
  if (!signature) return undefined;

  const key = await verificationKey(context, header.alg, header.kid);
  const signingInput = encoder.encode(`${encodedHeader}.${encodedPayload}`);
  if (!key || !(await signedBy(context, key, signingInput, signature))) return undefined;

  const payload = decodeJsonObject(encodedPayload);
  if (!payload || payload.iss !== context.realm.issuer) return undefined;
  const now = nowSeconds(context);
  const { iat, nbf, exp } = payload;
  if (iat !== undefined && typeof iat !== 'number') return undefined;
  if (nbf !== undefined && (typeof nbf !== 'number' || nbf > now)) return undefined;
  if (exp !== undefined && (typeof exp !== 'number' || (exp <= now && !options.allowExpired)))
    return undefined;
  return payload as JWTPayload;
}

/**
 * The one published key that can verify this token: of its `alg` and, when the header names one,
 * its `kid`. As jose, none when several match (a token without `kid` while two keys of its `alg`
 * are published). The key list is read afresh once when the token names a kid the cached list
 * lacks, as after a rotation on another instance; a kid the list has under another `alg` is not
 * a reason to read it again.
 */
async function verificationKey(
  context: RealmContext,
  alg: SigningAlgorithm,
  kid: unknown,
): Promise<PublicJwk | undefined> {
  if (kid !== undefined && typeof kid !== 'string') return undefined;
  let keys = await context.keys.publicKeys(context.realm);
  if (kid !== undefined && !keys.some((key) => key.kid === kid))
    keys = await context.keys.publicKeys(context.realm, { fresh: true });
  const matching = keys.filter(
    (key): key is PublicJwk => (kid === undefined || key.kid === kid) && keyFitsAlgorithm(key, alg),
  );
  return matching.length === 1 ? matching[0] : undefined;
}

/**
 * Whether `key` made `signature`, checked by the provider's verifier. A key WebCrypto cannot
 * import verifies nothing; only `true` counts: a host's own verifier answering anything else has
 * not verified the token.
 */
async function signedBy(
  context: RealmContext,
  key: PublicJwk,
  signingInput: Uint8Array<ArrayBuffer>,
  signature: Uint8Array<ArrayBuffer>,
): Promise<boolean> {
  const imported = await importPublicKey(key).catch(() => undefined);
  if (!imported || !cryptoKeyVerifies(imported, key.alg)) return false;
  return (await context.verifier.verify(key.alg, imported, signingInput, signature)) === true;
}

const isSigningAlgorithm = (alg: unknown): alg is SigningAlgorithm =>
  (SIGNING_ALGORITHMS as readonly unknown[]).includes(alg);

/** A `typ` compared as jose compares it: case-insensitive, `application/` optional. */
const mediaType = (typ: string) => typ.toLowerCase().replace(/^application\//, '');

function decodeBase64url(segment: string): Uint8Array<ArrayBuffer> | undefined {
  if (!BASE64URL.test(segment)) return undefined;
  try {
    return base64url.decode(segment) as Uint8Array<ArrayBuffer>;
  } catch {
    return undefined;
  }
}

function decodeJsonObject(segment: string): Record<string, unknown> | undefined {
  const bytes = decodeBase64url(segment);
  if (!bytes) return undefined;
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
