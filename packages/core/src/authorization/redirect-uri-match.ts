import { portlessLoopback } from '../config/loopback-redirect.js';
import type { Client } from '../realms/realm.js';

/**
 * Whether `uri` is one of the client's registered redirect URIs: the same string, with no
 * normalisation of case, encoding or trailing slashes; or, for a native client only (RFC 8252
 * §7.3), a loopback URI that differs from a registered loopback URI by its port alone. A web
 * client never gets port freedom.
 */
export function isRegisteredRedirectUri(client: Client, uri: string): boolean {
  const registered = client.config.redirect_uris;
  if (registered.includes(uri)) return true;
  if (client.config.application_type !== 'native') return false;
  const portless = portlessLoopback(uri);
  return portless !== undefined && registered.some((each) => portlessLoopback(each) === portless);
}
