/**
 * RFC 9728 OAuth 2.0 Protected Resource Metadata: the document a client reads to learn which
 * authorization server issues tokens for a resource, and where that document is published.
 */

/** The RFC 9728 §2 metadata of a protected resource. Absent members are left out of the document. */
export interface ProtectedResourceMetadata {
  /** The resource identifier: an `https` URL (`http` on loopback) without a fragment. */
  resource: string;
  /** Issuer identifiers of the authorization servers whose tokens the resource accepts. */
  authorization_servers?: string[];
  /** The resource's own JWK Set, for resources that sign or encrypt responses. */
  jwks_uri?: string;
  /** Scopes a client may request for this resource. */
  scopes_supported?: string[];
  /** How a token may be presented (RFC 6750 §2); the kit reads only the `header`. */
  bearer_methods_supported?: ('header' | 'body' | 'query')[];
  resource_signing_alg_values_supported?: string[];
  /** Human-readable name, for consent screens. */
  resource_name?: string;
  resource_documentation?: string;
  resource_policy_uri?: string;
  resource_tos_uri?: string;
  tls_client_certificate_bound_access_tokens?: boolean;
  authorization_details_types_supported?: string[];
  /** JWS algorithms accepted for DPoP proofs (RFC 9449). */
  dpop_signing_alg_values_supported?: string[];
  /** Whether every token must be DPoP-bound. */
  dpop_bound_access_tokens_required?: boolean;
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

const URL_MEMBERS = [
  'jwks_uri',
  'resource_documentation',
  'resource_policy_uri',
  'resource_tos_uri',
] as const;

/**
 * The metadata document, checked: the resource identifier and every URL member must be absolute
 * URLs (the resource with no fragment, RFC 9728 §1.2), authorization servers too. Throws a
 * TypeError naming the member otherwise. Returns a frozen copy without absent members.
 */
export function protectedResourceMetadata(
  metadata: ProtectedResourceMetadata,
): Readonly<ProtectedResourceMetadata> {
  checkResource(metadata.resource);
  for (const member of URL_MEMBERS) {
    const value = metadata[member];
    if (value !== undefined) absoluteUrl(value, member);
  }
  for (const server of metadata.authorization_servers ?? []) {
    absoluteUrl(server, 'authorization_servers');
  }
  const present = Object.entries(metadata).filter(([, value]) => value !== undefined);
  return Object.freeze(Object.fromEntries(present) as unknown as ProtectedResourceMetadata);
}

/**
 * The path of a resource's metadata document on its origin (RFC 9728 §3.1): the well-known
 * prefix, then the resource's path, if any. `https://api.example.com/mcp` →
 * `/.well-known/oauth-protected-resource/mcp`.
 */
export function metadataPathOf(resource: string): string {
  const { pathname } = checkResource(resource);
  return pathname === '/' ? WELL_KNOWN : `${WELL_KNOWN}${pathname}`;
}

/** The absolute URL of a resource's metadata document, as `resource_metadata` names it. */
export function metadataUrlOf(resource: string): string {
  const url = checkResource(resource);
  return `${url.origin}${metadataPathOf(resource)}${url.search}`;
}

function checkResource(resource: string): URL {
  const url = absoluteUrl(resource, 'resource');
  if (url.hash !== '' || resource.includes('#')) {
    throw new TypeError(`resource must have no fragment: ${resource}`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
    throw new TypeError(`resource must be an https URL (http only on loopback): ${resource}`);
  }
  return url;
}

function absoluteUrl(value: string, member: string): URL {
  if (!URL.canParse(value)) throw new TypeError(`${member} must be an absolute URL: ${value}`);
  return new URL(value);
}
