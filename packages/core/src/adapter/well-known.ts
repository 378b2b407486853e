import { ENDPOINT_PATHS } from '../endpoints/paths.js';
import { recordedAdapterFacts } from '../http/adapter-facts.js';
import type { GatehouseRequest } from '../http/types.js';
import type { Provider } from '../provider.js';

/**
 * The paths at the host's root below which clients look for a realm's metadata by RFC 8414 §3.1
 * path insertion: `/.well-known/oauth-authorization-server{issuer path}`, and the same with
 * `openid-configuration`, which MCP clients and others try too. A binding routes every request
 * at or below these to `wellKnownRequest`.
 */
export const WELL_KNOWN_ROOTS = [
  `/${ENDPOINT_PATHS.authorizationServerMetadata}`,
  `/${ENDPOINT_PATHS.discovery}`,
] as const;

/**
 * A request the host received at its root below one of `WELL_KNOWN_ROOTS`, as the provider takes
 * it: `/.well-known/{name}{base path}/oauth/{realm}` becomes `/oauth/{realm}/.well-known/{name}`,
 * the realm's own metadata (the same document, the same `issuer`). Any other path is passed on as
 * it is, which the provider answers with its JSON `404 not_found`, as it does an unknown realm.
 */
export function wellKnownRequest(provider: Provider, request: GatehouseRequest): GatehouseRequest {
  const { basePath } = recordedAdapterFacts(provider);
  for (const root of WELL_KNOWN_ROOTS) {
    const prefix = `${root}${basePath}/oauth/`;
    if (!request.path.startsWith(prefix)) continue;
    const realm = request.path.slice(prefix.length);
    if (realm === '' || realm.includes('/')) break;
    return { ...request, path: `/oauth/${realm}${root}` };
  }
  return request;
}
