import { z } from 'zod';
import { ASYMMETRIC_ASSERTION_ALGORITHMS } from './client.js';
import { FAPI2_ALGORITHMS, isFapi2 } from './fapi2.js';
import type { RealmConfig } from './realm.js';

/** What DPoP proofs may be signed with by default: every asymmetric algorithm, never HMAC or none. */
const DEFAULT_PROOF_ALGORITHMS = ['ES256', 'PS256', 'EdDSA', 'RS256', 'ES384', 'PS384'] as const;

/** A realm's DPoP settings (RFC 9449); DPoP is always accepted, these tune it. */
export const dpopSchema = z.strictObject({
  require_nonce: z
    .boolean()
    .default(false)
    .describe(
      'Proofs must carry a nonce the server gave (RFC 9449 §8, §9): a proof without one is answered `use_dpop_nonce` with a `DPoP-Nonce` header, and every token and userinfo answer carries a fresh one. Nonces are stateless, so every instance accepts every other’s.',
    ),
  signing_alg_values: z
    .array(z.enum(ASYMMETRIC_ASSERTION_ALGORITHMS))
    .min(1)
    .optional()
    .describe(
      `The asymmetric JWS algorithms a proof may be signed with, published as \`dpop_signing_alg_values_supported\`. Default: ${DEFAULT_PROOF_ALGORITHMS.join(', ')}; in a \`fapi2\` realm ${FAPI2_ALGORITHMS.join(', ')}.`,
    ),
});

export type DpopConfig = z.output<typeof dpopSchema>;

/** What a realm's proofs may be signed with: its setting, else its profile's default. */
export function proofAlgorithms(realm: RealmConfig): readonly string[] {
  return (
    realm.dpop.signing_alg_values ?? (isFapi2(realm) ? FAPI2_ALGORITHMS : DEFAULT_PROOF_ALGORITHMS)
  );
}
