import type { GatehouseRequest } from '../http/types.js';
import { invalidProof } from './proof-error.js';

/**
 * A proof is a compact JWS of a public key and a few short claims: 8 KiB holds one signed with a
 * 4096-bit RSA key several times over, and bounds the work an oversized header could cause.
 */
export const MAX_PROOF_CHARS = 8192;

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The request's `DPoP` header (RFC 9449 §4.1), or undefined without one. More than one (which
 * Node joins with `, `), an oversized one or anything but a compact JWS is `invalid_dpop_proof`
 * (RFC 9449 §4.3 checks 1 and 2).
 */
export function proofHeader(request: GatehouseRequest): string | undefined {
  const proof = request.headers.dpop;
  if (proof === undefined) return undefined;
  if (proof.length > MAX_PROOF_CHARS) throw invalidProof('the DPoP proof is too large');
  if (!COMPACT_JWS.test(proof)) throw invalidProof('the DPoP header is not one compact JWT');
  return proof;
}
