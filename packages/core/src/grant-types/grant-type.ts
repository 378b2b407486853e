import type { RealmContext } from '../context.js';
import type { Params } from '../http/form.js';
import type { GatehouseResponse } from '../http/types.js';
import type { Client } from '../realms/realm.js';

/**
 * One grant type of the token endpoint, run after the client has authenticated. `dpopJkt` is the
 * thumbprint of the key the request's DPoP proof was signed with: the access token is bound to
 * it (RFC 9449 §5); undefined for a request without a proof.
 */
export type GrantTypeHandler = (
  params: Params,
  client: Client,
  context: RealmContext,
  dpopJkt?: string,
) => Promise<GatehouseResponse>;
