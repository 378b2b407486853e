import type { Accounts } from './accounts/accounts.js';
import type { AuthenticatorPush } from './ciba/authenticator-push.js';
import type { GatehouseRequest, GatehouseResponse } from './http/types.js';
import type { InteractionDetails } from './interactions/interaction.js';
import type { KeyStore } from './keys/key-store.js';
import type { JwsSigner } from './keys/signing-key.js';
import type { Realm } from './realms/realm.js';
import type { Store } from './store/store.js';

/** The adapters and settings every handler reaches its side effects through. */
export interface ProviderContext {
  readonly store: Store;
  readonly keys: KeyStore;
  readonly signer: JwsSigner;
  /** Milliseconds since the epoch; injectable so tests control time. */
  readonly now: () => number;
  readonly maxBodyBytes: number;
  readonly accounts: Accounts;
  /** Where the host application's login or consent page for an interaction lives. */
  readonly interactionUrl: (interaction: InteractionDetails) => string;
  /** Reaches users' authenticator apps; required by realms with CIBA. */
  readonly authenticatorPush: AuthenticatorPush | undefined;
  /** Reports a failure nobody is waiting for (the `onError` option). */
  readonly reportError: (error: unknown) => void;
}

export interface RealmContext extends ProviderContext {
  readonly realm: Realm;
}

/** One endpoint: pure request in, response out. */
export type EndpointHandler = (
  request: GatehouseRequest,
  context: RealmContext,
) => Promise<GatehouseResponse>;

export const nowSeconds = (context: ProviderContext): number => Math.floor(context.now() / 1000);
