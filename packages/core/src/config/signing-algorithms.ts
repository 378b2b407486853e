/** The JWS algorithms a realm signs with. */
export const SIGNING_ALGORITHMS = ['ES256', 'EdDSA', 'RS256', 'PS256'] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

/**
 * Every realm can sign ID tokens with RS256 besides its own `signing_alg`: OpenID Connect
 * Discovery §3 requires it, and many relying-party libraries expect it by default.
 */
export const ALWAYS_AVAILABLE_ID_TOKEN_ALG: SigningAlgorithm = 'RS256';
