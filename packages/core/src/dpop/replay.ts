import { tokenDigest } from '../crypto/digest.js';
import type { Store } from '../store/store.js';
import { PROOF_CLOCK_SKEW_SECONDS, PROOF_MAX_AGE_SECONDS } from './proof-claims.js';

const JTI_NAMESPACE = 'dpop_jti';

/**
 * Records a proof's `jti` for as long as the proof could be accepted (RFC 9449 §11.1), in the
 * shared store so that a proof used at one instance is refused at every other. True when it was
 * new; false for a replay. The key's thumbprint is part of the id: two clients may pick the same
 * `jti`.
 */
export function rememberProof(
  store: Store,
  realm: string,
  jkt: string,
  jti: string,
): Promise<boolean> {
  return store.add(
    JTI_NAMESPACE,
    `${realm}/${tokenDigest(`${jkt}:${jti}`)}`,
    {},
    { ttlSeconds: PROOF_MAX_AGE_SECONDS + PROOF_CLOCK_SKEW_SECONDS + 1 },
  );
}
