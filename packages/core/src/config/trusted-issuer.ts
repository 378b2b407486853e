import { z } from 'zod';
import { ASYMMETRIC_ASSERTION_ALGORITHMS, publicJwk } from './client.js';
import { absoluteUrl, httpsOrLoopbackUrl } from './primitives.js';

/**
 * What a trusted issuer's assertions are: `id-jag`, the Identity Assertion JWT Authorization Grant
 * of an enterprise identity provider (MCP Enterprise-Managed Authorization); `assertion`, a plain
 * RFC 7523 authorization grant (workload identity).
 */
export const TRUSTED_ISSUER_PROFILES = ['id-jag', 'assertion'] as const;
export type TrustedIssuerProfile = (typeof TRUSTED_ISSUER_PROFILES)[number];

/** An issuer whose JWTs the jwt-bearer grant accepts (docs/delegation.md). */
export const trustedIssuerSchema = z.strictObject({
  issuer: absoluteUrl.describe('The `iss` of its assertions, compared exactly.'),
  jwks_uri: httpsOrLoopbackUrl
    .optional()
    .describe('Where its public keys are fetched (bounded, cached like clients’ key sets).'),
  jwks: z
    .strictObject({ keys: z.array(publicJwk).min(1) })
    .optional()
    .describe('Its public keys, instead of jwks_uri.'),
  profile: z
    .enum(TRUSTED_ISSUER_PROFILES)
    .describe(
      '`id-jag` (an ID-JAG, `typ` `oauth-id-jag+jwt`, for one client and resource) or `assertion` (plain RFC 7523: `sub` is the subject).',
    ),
  signing_algs: z
    .array(z.enum(ASYMMETRIC_ASSERTION_ALGORITHMS))
    .min(1)
    .optional()
    .describe('Pins the JWS algorithms accepted from it; by default any asymmetric one.'),
});

export type TrustedIssuerInput = z.input<typeof trustedIssuerSchema>;
export type TrustedIssuerConfig = z.output<typeof trustedIssuerSchema>;
