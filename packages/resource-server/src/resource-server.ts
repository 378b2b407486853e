import { type AccessToken, accessTokenOf, checkScopes } from './access-token.js';
import { type ChallengeSettings, type Denial, denial, failure } from './challenge.js';
import { type DpopRules, verifyDpopProof } from './dpop.js';
import {
  metadataPathOf,
  metadataUrlOf,
  type ProtectedResourceMetadata,
  protectedResourceMetadata,
} from './metadata.js';
import { proofAlgorithms, type ResourceServerOptions, seconds } from './options.js';
import { type PresentedToken, presentedToken, type RequestHeaders } from './presented-token.js';
import { memoryReplayCache } from './replay-cache.js';
import { tokenClaimsChecker } from './token-claims.js';
import { TokenError, UpstreamError } from './token-error.js';

/** What a verification reads of a request; a Web `Request` is one. */
export interface ProtectedRequest {
  method: string;
  /**
   * The request's URL, absolute or from its path on: only the path is read, the origin is the
   * resource's (never the Host header's), for DPoP's `htu`.
   */
  url: string;
  headers: RequestHeaders;
}

/** What a route requires beyond the resource's own `scopes`. */
export interface Requirement {
  scopes?: readonly string[];
}

/** A request whose token passed: the token, for the route handler. */
export interface Admission {
  ok: true;
  token: AccessToken;
}

/** The outcome of `verify`: go on with the token, or send the denial. */
export type Verdict = Admission | Denial;

/** A protected resource: its metadata, and the check of its requests' tokens. */
export interface ResourceServer {
  readonly resource: string;
  /** The RFC 9728 metadata document, to serve as JSON at `metadataPath`. */
  readonly metadata: Readonly<ProtectedResourceMetadata>;
  /** Where on the resource's origin the metadata is served (RFC 9728 §3.1). */
  readonly metadataPath: string;
  /** The metadata's absolute URL, as challenges name it in `resource_metadata`. */
  readonly metadataUrl: string;
  /**
   * Checks the request's access token (and DPoP proof) and the scopes required. Never rejects:
   * a failure that is not the request's (the issuer unreachable, a bug) is given to `onError`
   * and answered 503 or 500.
   */
  verify(request: ProtectedRequest, requirement?: Requirement): Promise<Verdict>;
}

/**
 * A resource server for the tokens of one issuer (Gatehouse or any RFC 9068 authorization
 * server). Options are checked at once; nothing is fetched until the first token needs it.
 */
export function createResourceServer(options: ResourceServerOptions): ResourceServer {
  const now = options.now ?? Date.now;
  const onError = options.onError ?? ((error: unknown) => console.error(error));
  const dpop = options.dpop === false ? undefined : (options.dpop ?? {});
  const dpopAlgorithms = dpop && proofAlgorithms(dpop);
  const metadata = protectedResourceMetadata({
    ...options.metadata,
    resource: options.resource,
    authorization_servers: [checkedIssuer(options.issuer)],
    bearer_methods_supported: ['header'],
    ...(dpopAlgorithms ? { dpop_signing_alg_values_supported: [...dpopAlgorithms] } : {}),
    ...(dpop?.required ? { dpop_bound_access_tokens_required: true } : {}),
  });
  const origin = new URL(options.resource).origin;
  const challenges: ChallengeSettings = {
    resourceMetadata: metadataUrlOf(options.resource),
    bearer: !dpop?.required,
    dpopAlgorithms,
  };
  const dpopRules: DpopRules | undefined = dpop && {
    algorithms: dpopAlgorithms ?? [],
    maxAgeSeconds: seconds(dpop.maxAgeSeconds, 60, 'dpop.maxAgeSeconds'),
    clockToleranceSeconds: seconds(options.clockToleranceSeconds, 30, 'clockToleranceSeconds'),
    replayCache: dpop.replayCache ?? memoryReplayCache({ now }),
    now,
  };
  const claimsOf = tokenClaimsChecker(options, now);
  const baseScopes = options.scopes ?? [];

  async function admit(
    request: ProtectedRequest,
    presented: PresentedToken,
    scopes: readonly string[],
  ) {
    if (presented.scheme === 'Bearer' && !challenges.bearer) {
      throw new TokenError('invalid_token', 'this resource accepts DPoP-bound tokens only');
    }
    const { claims, verifiedBy } = await claimsOf(presented.token);
    const token = accessTokenOf(claims, verifiedBy);
    if (token.dpopJkt === undefined) {
      if (presented.scheme === 'DPoP') {
        throw new TokenError('invalid_token', 'the token is not bound to a DPoP key');
      }
    } else if (presented.scheme === 'Bearer' || !dpopRules || presented.proof === undefined) {
      throw new TokenError('invalid_token', 'the token is DPoP-bound: send it with a DPoP proof');
    } else {
      const target = {
        method: request.method,
        url: `${origin}${new URL(request.url, origin).pathname}`,
        accessToken: presented.token,
        jkt: token.dpopJkt,
      };
      await verifyDpopProof(presented.proof, target, dpopRules);
    }
    checkScopes(token, scopes);
    return token;
  }

  return {
    resource: options.resource,
    metadata,
    metadataPath: metadataPathOf(options.resource),
    metadataUrl: challenges.resourceMetadata,
    async verify(request, requirement) {
      const scopes = requirement?.scopes?.length
        ? [...new Set([...baseScopes, ...requirement.scopes])]
        : baseScopes;
      let presented: PresentedToken | undefined;
      try {
        presented = presentedToken(request.headers);
        if (!presented || (presented.scheme === 'DPoP' && !dpopRules)) {
          return denial(challenges, scopes);
        }
        return { ok: true, token: await admit(request, presented, scopes) };
      } catch (error) {
        if (error instanceof TokenError)
          return denial(challenges, scopes, error, presented?.scheme);
        onError(error);
        return failure(error instanceof UpstreamError ? 503 : 500);
      }
    },
  };
}

function checkedIssuer(issuer: string): string {
  if (!URL.canParse(issuer)) throw new TypeError(`issuer must be an absolute URL: ${issuer}`);
  return issuer;
}
