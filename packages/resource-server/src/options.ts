import type { IntrospectionOptions } from './introspection.js';
import type { ProtectedResourceMetadata } from './metadata.js';
import type { KeySetLimits } from './remote-key-set.js';
import type { ReplayCache } from './replay-cache.js';

/** What `createResourceServer` takes. Checked when called: a mistake throws a TypeError naming it. */
export interface ResourceServerOptions {
  /**
   * This resource's identifier (RFC 8707, RFC 9728): an `https` URL (`http` on loopback) without
   * fragment. Tokens must name it in `aud`; its origin is where DPoP proofs must point (`htu`).
   */
  resource: string;
  /** The authorization server whose tokens are accepted: its issuer identifier, as tokens' `iss`. */
  issuer: string;
  /** The issuer's JWK Set; read from its metadata (`jwks_uri`) when not given. */
  jwksUri?: string;
  /** Check tokens that are not JWTs (or every token) at the issuer's introspection endpoint. */
  introspection?: IntrospectionOptions;
  /**
   * JWS algorithms accepted for JWT access tokens. Default: every asymmetric one jose knows
   * (ES256/384/512, PS256/384/512, RS256/384/512, EdDSA, Ed25519). `none` is refused; an HMAC
   * algorithm (HS256/384/512) only with `hmacSecret`.
   */
  algorithms?: string[];
  /** The secret shared with the issuer, for tokens signed with HMAC; at least 32 bytes. */
  hmacSecret?: Uint8Array;
  /**
   * Also accept JWTs that are not RFC 9068 access tokens: `typ` `JWT` or none, and only `iss`,
   * `aud` and `exp` required. Off: `typ` must be `at+jwt` and the RFC's claims present.
   */
  allowGenericJwt?: boolean;
  /** Seconds of clock difference allowed on `exp`, `nbf` and a DPoP proof's `iat`; 30 by default. */
  clockToleranceSeconds?: number;
  /** Scopes every request needs; a route may require more. */
  scopes?: string[];
  /**
   * DPoP-bound tokens (RFC 9449): accepted by default, with their proofs checked; `required`
   * refuses Bearer tokens; `false` turns the DPoP scheme off. A bound token sent as Bearer is
   * always refused.
   */
  dpop?: DpopOptions | false;
  /** Further members of the RFC 9728 metadata document (its name, scopes, documentation…). */
  metadata?: Omit<
    ProtectedResourceMetadata,
    | 'resource'
    | 'authorization_servers'
    | 'bearer_methods_supported'
    | 'dpop_signing_alg_values_supported'
    | 'dpop_bound_access_tokens_required'
  >;
  /** Bounds of calls to the issuer and of its key set; the core's own by default. */
  limits?: Partial<KeySetLimits>;
  /** Every call to the issuer goes through it; the global fetch by default. */
  fetch?: typeof fetch;
  /** Milliseconds since the epoch; `Date.now` by default (jose's key cache keeps its own time). */
  now?: () => number;
  /** Hears of failures that are not the request's: the issuer unreachable, a bug; console.error by default. */
  onError?: (error: unknown) => void;
}

export interface DpopOptions {
  /** Refuse tokens that are not DPoP-bound. */
  required?: boolean;
  /** JWS algorithms accepted for proofs; the asymmetric ones by default. */
  algorithms?: string[];
  /** Seconds after its `iat` a proof is accepted; 60 by default. */
  maxAgeSeconds?: number;
  /** Where proofs' `jti`s are remembered; `memoryReplayCache()` by default (one process). */
  replayCache?: ReplayCache;
}

export const ASYMMETRIC_ALGORITHMS: readonly string[] = [
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
  'EdDSA',
  'Ed25519',
];
const HMAC_ALGORITHMS: readonly string[] = ['HS256', 'HS384', 'HS512'];

/** The algorithms for tokens, checked against the secret given (or not). */
export function tokenAlgorithms(options: ResourceServerOptions): readonly string[] {
  const algorithms = options.algorithms ?? ASYMMETRIC_ALGORITHMS;
  for (const alg of algorithms) {
    if (HMAC_ALGORITHMS.includes(alg)) {
      if (!options.hmacSecret) throw new TypeError(`algorithms: ${alg} needs hmacSecret`);
    } else if (!ASYMMETRIC_ALGORITHMS.includes(alg)) {
      throw new TypeError(`algorithms: ${alg} is not an algorithm for access tokens`);
    }
  }
  if (algorithms.length === 0) throw new TypeError('algorithms: none given');
  if (options.hmacSecret) {
    if (!algorithms.some((alg) => HMAC_ALGORITHMS.includes(alg))) {
      throw new TypeError('hmacSecret: no HMAC algorithm (HS256…) in algorithms');
    }
    if (options.hmacSecret.byteLength < 32) throw new TypeError('hmacSecret: at least 32 bytes');
  }
  return algorithms;
}

/** The algorithms for DPoP proofs: asymmetric ones only (RFC 9449 §4.2). */
export function proofAlgorithms(dpop: DpopOptions): readonly string[] {
  const algorithms = dpop.algorithms ?? ASYMMETRIC_ALGORITHMS;
  const wrong = algorithms.find((alg) => !ASYMMETRIC_ALGORITHMS.includes(alg));
  if (wrong !== undefined) throw new TypeError(`dpop.algorithms: ${wrong} is not asymmetric`);
  if (algorithms.length === 0) throw new TypeError('dpop.algorithms: none given');
  return algorithms;
}

export function seconds(value: number | undefined, fallback: number, name: string): number {
  const resolved = value ?? fallback;
  if (!Number.isFinite(resolved) || resolved < 0) {
    throw new TypeError(`${name}: a number of seconds ≥ 0`);
  }
  return resolved;
}
