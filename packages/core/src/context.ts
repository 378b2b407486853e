import type { Accounts } from './accounts/accounts.js';
import type { AuthenticatorPush } from './ciba/authenticator-push.js';
import type { RemoteKeySets } from './client-auth/remote-key-sets.js';
import type { MetadataDocumentClients } from './client-metadata/document-clients.js';
import type { ProviderLimits } from './config/provider.js';
import type { DpopNonces } from './dpop/nonces.js';
import type { EventSink } from './events/emit.js';
import type { GatehouseRequest, GatehouseResponse } from './http/types.js';
import type { InteractionDetails } from './interactions/interaction.js';
import type { JwsVerifier } from './keys/jws-verifier.js';
import type { KeyStore } from './keys/key-store.js';
import type { JwsSigner } from './keys/signing-key.js';
import type { BackchannelDelivery } from './logout/backchannel-delivery.js';
import type { LogoutMessages } from './logout/messages.js';
import type { OutboundFetcher } from './outbound/outbound.js';
import type { Realm } from './realms/realm.js';
import type { Store } from './store/store.js';

/** The adapters and settings every handler reaches its side effects through. */
export interface ProviderContext {
  readonly store: Store;
  readonly keys: KeyStore;
  readonly signer: JwsSigner;
  readonly verifier: JwsVerifier;
  /** Milliseconds since the epoch; injectable so tests control time. */
  readonly now: () => number;
  readonly maxBodyBytes: number;
  /** Bounds on the records anonymous requests create. */
  readonly limits: ProviderLimits;
  readonly accounts: Accounts;
  /** Where the host application's login or consent page for an interaction lives. */
  readonly interactionUrl: (interaction: InteractionDetails) => string;
  /** The host's page where a user types a device's user code (RFC 8628 `verification_uri`). */
  readonly deviceVerificationUrl: (realmName: string) => string;
  /** Reaches users' authenticator apps; required by realms with CIBA. */
  readonly authenticatorPush: AuthenticatorPush | undefined;
  /** Every outbound request goes through it (outbound/bounded-fetcher.ts). */
  readonly outbound: OutboundFetcher;
  /** The key sets of clients registered with a jwks_uri, fetched on first use. */
  readonly remoteKeySets: RemoteKeySets;
  /** Clients read from Client ID Metadata Documents, kept within their realms' bounds. */
  readonly metadataDocumentClients: MetadataDocumentClients;
  /** Makes and checks the DPoP nonces of realms that require them. */
  readonly dpopNonces: DpopNonces;
  /** The host application's own rule on where realms may take clients' documents from. */
  readonly allowClientIdMetadataDocument: AllowClientIdMetadataDocument | undefined;
  /** The words of the logout pages for a request's `ui_locales`. */
  readonly logoutMessages: (uiLocales: readonly string[]) => LogoutMessages;
  /** Posts logout tokens and CIBA pings to clients, in the background, within bounds. */
  readonly backchannel: BackchannelDelivery;
  /** Reports a failure nobody is waiting for (the `onError` option). */
  readonly reportError: (error: unknown) => void;
  /** Where events go (events/emit.ts); undefined when nobody listens. */
  readonly events: EventSink | undefined;
}

/**
 * Whether a realm may take a client from the metadata document at `url`, beside the realm's own
 * `allowed_hosts`: false refuses the client with `invalid_client`. Asked on every request of the
 * client, with a URL the provider keeps: read it, never change it.
 */
export type AllowClientIdMetadataDocument = (
  url: URL,
  realmName: string,
) => boolean | Promise<boolean>;

export interface RealmContext extends ProviderContext {
  readonly realm: Realm;
}

/** One endpoint: pure request in, response out. */
export type EndpointHandler = (
  request: GatehouseRequest,
  context: RealmContext,
) => Promise<GatehouseResponse>;

export const nowSeconds = (context: ProviderContext): number => Math.floor(context.now() / 1000);
