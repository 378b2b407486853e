import type { RealmContext } from '../context.js';
import type { Params } from '../http/form.js';
import type { GatehouseResponse } from '../http/types.js';
import type { Client } from '../realms/realm.js';

/** One grant type of the token endpoint, run after the client has authenticated. */
export type GrantTypeHandler = (
  params: Params,
  client: Client,
  context: RealmContext,
) => Promise<GatehouseResponse>;
