import { decodeProtectedHeader, type JWK, type JWTPayload } from 'jose';
import { PRIVATE_JWK_MEMBERS } from '../config/client.js';
import { verifyJwt } from '../jwt/verify-jwt.js';
import type { JwsVerifier } from '../keys/jws-verifier.js';
import { invalidProof } from './proof-error.js';
import { proofKey } from './proof-keys.js';
import { jwkThumbprint } from './thumbprint.js';

export const PROOF_JWT_TYPE = 'dpop+jwt';

/** A proof whose signature is by the public key in its own header. */
export interface SignedProof {
  readonly claims: JWTPayload;
  /** The RFC 7638 SHA-256 thumbprint of that key: what tokens are bound to (`cnf.jkt`). */
  readonly jkt: string;
}

/**
 * RFC 9449 §4.3 checks 2 to 7: `typ` `dpop+jwt`, an `alg` of `algorithms` (asymmetric only:
 * never `none`, never HMAC), a `jwk` header that is a public key, and a signature by that key,
 * checked by `verifier`.
 */
export async function verifyProofSignature(
  proof: string,
  algorithms: readonly string[],
  verifier: JwsVerifier,
): Promise<SignedProof> {
  const { jwk, alg } = proofHeader(proof);
  if (!algorithms.includes(alg)) {
    throw invalidProof('the DPoP proof is signed with an algorithm this realm does not accept');
  }
  const jkt = jwkThumbprint(jwk as Record<string, unknown>);
  if (jkt === undefined) throw invalidProof('the jwk of the DPoP proof is not a usable public key');
  try {
    const key = await proofKey(jwk, alg, jkt);
    if (key instanceof Uint8Array)
      throw invalidProof('the jwk of the DPoP proof must be a public key');
    const { payload } = await verifyJwt(verifier, proof, key, {
      typ: PROOF_JWT_TYPE,
      algorithms: [alg],
    });
    return { claims: payload, jkt };
  } catch (error) {
    // All of a proof is the client's, its key included: WebCrypto's DataError for a malformed
    // `jwk` is as much the client's mistake as jose's errors.
    throw invalidProof('the DPoP proof is not a valid JWT signed by its jwk', error);
  }
}

function proofHeader(proof: string): { jwk: JWK; alg: string } {
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(proof);
  } catch (error) {
    throw invalidProof('the DPoP proof header is malformed', error);
  }
  const { jwk, alg } = header;
  if (typeof jwk !== 'object' || jwk === null) throw invalidProof('the DPoP proof has no jwk');
  if (PRIVATE_JWK_MEMBERS.some((member) => member in jwk)) {
    throw invalidProof('the jwk of the DPoP proof must be a public key');
  }
  if (typeof alg !== 'string') throw invalidProof('the DPoP proof has no alg');
  return { jwk, alg };
}
