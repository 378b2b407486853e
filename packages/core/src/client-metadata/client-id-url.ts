/** Longest client_id URL taken: it is stored with every code, token and consent of the client. */
export const MAX_CLIENT_ID_URL_LENGTH = 1024;

/**
 * The URL of a client's metadata document when its client_id is one
 * (draft-ietf-oauth-client-id-metadata-document §3): https, a path beyond `/`, no fragment, no
 * user name or password, written in the normal form a URL parser gives it (so no `.` or `..`
 * segment, no upper-case host, no default port: one document has one client_id). Anything else
 * is an ordinary client_id.
 */
export function metadataDocumentUrl(clientId: string): URL | undefined {
  if (clientId.length > MAX_CLIENT_ID_URL_LENGTH || !clientId.startsWith('https://')) {
    return undefined;
  }
  const url = URL.parse(clientId);
  if (!url || url.href !== clientId) return undefined;
  if (clientId.includes('#') || url.username !== '' || url.password !== '') return undefined;
  return url.pathname === '/' ? undefined : url;
}

/**
 * Whether a document's host is one the realm accepts: any when it lists none, else a listed name
 * exactly or, for `*.example.com`, a name below example.com.
 */
export function isAllowedHost(hostname: string, allowedHosts: readonly string[] | undefined) {
  if (allowedHosts === undefined) return true;
  return allowedHosts.some((pattern) =>
    pattern.startsWith('*.') ? hostname.endsWith(pattern.slice(1)) : hostname === pattern,
  );
}
