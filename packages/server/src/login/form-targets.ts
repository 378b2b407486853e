import type { RealmCatalog } from '../realms/realm-catalog.js';

/**
 * Where the browser may be sent after a form of each client's pages is posted (the CSP
 * `form-action` of its pages), by realm and client.
 */
export function clientFormTargets(
  catalog: Pick<RealmCatalog, 'known'>,
): (realm: string, clientId: string) => readonly string[] {
  return (realm, clientId) => {
    const client = catalog.known(realm)?.clients.find((each) => each.client_id === clientId);
    return client ? redirectSources(client.redirect_uris, client.application_type) : [];
  };
}

/**
 * The CSP sources of a client's redirect URIs: the origin of an http(s) URI, the scheme of a
 * native app's private-use URI (RFC 8252 §7.1), and the loopback host on any port for a native
 * app's plain http URI, which the configuration keeps to loopback URIs and a request may give
 * any port (RFC 8252 §7.3).
 */
export function redirectSources(
  redirectUris: readonly string[],
  applicationType: 'web' | 'native' = 'web',
): string[] {
  const sources = new Set<string>();
  for (const uri of redirectUris) {
    const url = URL.parse(uri);
    if (!url) continue;
    if (applicationType === 'native' && url.protocol === 'http:') {
      sources.add(`http://${url.hostname}:*`);
    } else {
      sources.add(
        url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol,
      );
    }
  }
  return [...sources];
}
