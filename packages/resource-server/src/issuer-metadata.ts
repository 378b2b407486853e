import { type FetchLimits, fetchBounded, jsonObjectOf } from './bounded-fetch.js';
import { FailureBackoff } from './failure-backoff.js';
import { UpstreamError } from './token-error.js';

/** What the kit reads of an authorization server's metadata (RFC 8414 §2, OIDC Discovery §3). */
export interface IssuerMetadata {
  issuer: string;
  jwks_uri?: string;
  introspection_endpoint?: string;
}

/**
 * Where an issuer's metadata may be: OpenID Connect's `{issuer}/.well-known/openid-configuration`
 * first (Gatehouse and most providers), then RFC 8414's path-inserted
 * `/.well-known/oauth-authorization-server{path}`.
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [
    `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`,
    `${url.origin}/.well-known/oauth-authorization-server${path}`,
  ];
}

/**
 * Reads the issuer's metadata once and keeps it: the first document found whose `issuer` is the
 * configured one exactly (RFC 8414 §3.3). While none can be read, requests fail at once for a
 * growing wait (FailureBackoff) instead of each fetching.
 */
export function issuerMetadataLoader(
  issuer: string,
  limits: FetchLimits,
  fetchImpl: typeof fetch,
  now: () => number,
): () => Promise<IssuerMetadata> {
  const backoff = new FailureBackoff(now);
  let loaded: Promise<IssuerMetadata> | undefined;
  return () => {
    loaded ??= backoff
      .run(() => discover(issuer, limits, fetchImpl))
      .catch((error) => {
        loaded = undefined;
        throw error;
      });
    return loaded;
  };
}

async function discover(
  issuer: string,
  limits: FetchLimits,
  fetchImpl: typeof fetch,
): Promise<IssuerMetadata> {
  const reasons: string[] = [];
  for (const url of metadataUrls(issuer)) {
    try {
      const answer = await fetchBounded(
        fetchImpl,
        url,
        url,
        { headers: { accept: 'application/json' } },
        limits,
      );
      if (answer.status !== 200) throw new UpstreamError(`${url} answered HTTP ${answer.status}`);
      const document = jsonObjectOf(answer, url);
      if (document.issuer !== issuer) throw new UpstreamError(`${url} names another issuer`);
      return {
        issuer,
        ...urlMember(document, 'jwks_uri', url),
        ...urlMember(document, 'introspection_endpoint', url),
      };
    } catch (error) {
      reasons.push(error instanceof Error ? error.message : String(error));
    }
  }
  throw new UpstreamError(`no metadata of the issuer ${issuer}: ${reasons.join('; ')}`);
}

function urlMember(
  document: Record<string, unknown>,
  name: 'jwks_uri' | 'introspection_endpoint',
  from: string,
): Partial<IssuerMetadata> {
  const value = document[name];
  if (value === undefined) return {};
  if (typeof value !== 'string' || !URL.canParse(value)) {
    throw new UpstreamError(`${from} has a ${name} that is not a URL`);
  }
  return { [name]: value };
}
