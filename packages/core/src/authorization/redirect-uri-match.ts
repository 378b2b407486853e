import { portlessLoopback } from '../config/loopback-redirect.js';
import type { Client } from '../realms/realm.js';

/**
 * Whether `uri` is one of the client's registered redirect URIs: the same string, with no
 * normalisation of case, encoding or trailing slashes; or, for a native client or one from a
 * metadata document (RFC 8252 §7.3), a loopback URI that differs from a registered loopback URI
 * by its port alone. A configured web client never gets port freedom.
 */
export function isRegisteredRedirectUri(client: Client, uri: string): boolean {
  const registered = client.config.redirect_uris;
  if (registered.includes(uri)) return true;
  if (!loopbackPortIsFree(client)) return false;
  const portless = portlessLoopback(uri);
  return portless !== undefined && registered.some((each) => portlessLoopback(each) === portless);
}

/**
 * A metadata document's loopback redirect URIs are an agent's or a command-line tool's listener,
 * whatever `application_type` it wrote (most leave it out): the document itself keeps its plain
 * http to loopback (client-metadata/document-client.ts).
 */
const loopbackPortIsFree = (client: Client): boolean =>
  client.config.application_type === 'native' || client.source === 'metadata_document';
