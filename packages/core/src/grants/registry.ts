import { clientCredentialsGrant } from './client-credentials.js';
import type { GrantHandler } from './grant.js';

/** Token-endpoint grants by `grant_type`. Later grants register here. */
export const GRANT_REGISTRY: ReadonlyMap<string, GrantHandler> = new Map([
  ['client_credentials', clientCredentialsGrant],
]);
