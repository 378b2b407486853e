import { proofAlgorithms } from '../config/dpop.js';
import type { RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { JwsVerifier } from '../keys/jws-verifier.js';
import { claimsProblem } from './proof-claims.js';
import { invalidProof } from './proof-error.js';
import { verifyProofSignature } from './proof-signature.js';
import { rememberProof } from './replay.js';

/** What a realm accepts in a proof, and where it remembers proofs. */
export interface ProofRules {
  readonly algorithms: readonly string[];
  /** Checks the proof's signature. */
  readonly verifier: JwsVerifier;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /** Records a proof's `jti` under its key; false when it was seen before (a replay). */
  readonly remember: (jkt: string, jti: string) => Promise<boolean>;
  /** Present when the realm requires nonces: whether a proof's `nonce` is one it gave. */
  readonly acceptsNonce?: (nonce: string) => Promise<boolean>;
}

/** What the request the proof comes with is. */
export interface ProofRequest {
  readonly method: string;
  /** The endpoint's URL from the configuration. */
  readonly url: string;
  /** At a resource: the access token presented with the proof. */
  readonly accessToken?: string;
}

/**
 * Checks a DPoP proof (RFC 9449 §4.3) and returns its key's thumbprint: the signature and the
 * header, then the claims, then the server's nonce (§8, `use_dpop_nonce`), and last the `jti`,
 * so that only a proof that passed every other check is remembered (a client that was asked for
 * a nonce may send its next proof at once).
 */
export async function verifyProof(
  proof: string,
  request: ProofRequest,
  rules: ProofRules,
): Promise<string> {
  const { claims, jkt } = await verifyProofSignature(proof, rules.algorithms, rules.verifier);
  const problem = claimsProblem(claims, { ...request, now: Math.floor(rules.now() / 1000) });
  if (problem !== undefined) throw invalidProof(problem);
  if (rules.acceptsNonce) {
    const { nonce } = claims;
    if (typeof nonce !== 'string' || !(await rules.acceptsNonce(nonce))) {
      throw new OAuthError('use_dpop_nonce', 'the DPoP proof must carry the server nonce');
    }
  }
  if (!(await rules.remember(jkt, claims.jti as string))) {
    throw invalidProof('the DPoP proof was used before');
  }
  return jkt;
}

/** The realm's rules, over the provider's store and nonces. */
export function realmProofRules(context: RealmContext): ProofRules {
  const { realm, store, dpopNonces } = context;
  return {
    algorithms: proofAlgorithms(realm.config),
    verifier: context.verifier,
    now: context.now,
    remember: (jkt, jti) => rememberProof(store, realm.name, jkt, jti),
    ...(realm.config.dpop.require_nonce
      ? { acceptsNonce: (nonce) => dpopNonces.accepts(realm.name, nonce) }
      : {}),
  };
}
