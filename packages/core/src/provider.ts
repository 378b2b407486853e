import { type Accounts, claimlessAccounts } from './accounts/accounts.js';
import type { AuthenticatorPush, CibaApproval } from './ciba/authenticator-push.js';
import { decideCibaRequest } from './ciba/decide.js';
import { type ConfigIssue, parseConfig } from './config/issues.js';
import { providerOptionsSchema } from './config/provider.js';
import type { RealmConfig, RealmInput } from './config/realm.js';
import type { ProviderContext, RealmContext } from './context.js';
import { methodNotAllowed, notFound } from './errors/oauth-error.js';
import { errorToResponse } from './errors/to-response.js';
import type { GatehouseRequest, GatehouseResponse } from './http/types.js';
import type { InteractionDetails, InteractionResult } from './interactions/interaction.js';
import {
  finishInteraction,
  InteractionError,
  interactionDetails,
} from './interactions/interactions.js';
import type { KeyStore } from './keys/key-store.js';
import type { JwsSigner } from './keys/signing-key.js';
import { StoreKeyStore } from './keys/store-key-store.js';
import { webCryptoSigner } from './keys/webcrypto-signer.js';
import type { Realm } from './realms/realm.js';
import {
  loaderRealmSource,
  type RealmLoader,
  type RealmSource,
  staticRealmSource,
} from './realms/realm-source.js';
import { matchPath, ROUTES } from './router.js';
import { MemoryStore } from './store/memory-store.js';
import type { Store } from './store/store.js';

export interface ProviderOptions {
  /** Public origin (plus mount path) Gatehouse is reached at; realm R's issuer is `{baseUrl}/oauth/R`. */
  baseUrl: string;
  /** Static realm configurations, or the host application's loader. */
  realms: readonly RealmInput[] | RealmLoader;
  /** Defaults to an in-memory store (one process). */
  store?: Store;
  /** Defaults to keys generated on first use and persisted in `store`. */
  keys?: KeyStore;
  /** Defaults to WebCrypto; `@gatehouse/node-crypto` is faster on Node.js. */
  signer?: JwsSigner;
  /** The host's user store; without it users have no claims beyond `sub`. */
  accounts?: Accounts;
  /**
   * The URL of the host's login or consent page for an interaction (see docs/interactions.md).
   * Default: `{issuer}/interaction/{id}`, where the standalone server serves its pages.
   */
  interactionUrl?: (interaction: InteractionDetails) => string;
  /** Reaches users' authenticator apps; required when a realm enables CIBA. */
  authenticatorPush?: AuthenticatorPush;
  /** Milliseconds since the epoch. */
  now?: () => number;
  /** Largest accepted request body; larger ones get 413. Default 64 KiB. */
  maxBodyBytes?: number;
  /**
   * Receives every unexpected error (the client only sees `server_error`), with the request it
   * happened in, if any. Default: console.error.
   */
  onError?: (error: unknown, request: GatehouseRequest | undefined) => void;
}

export interface Provider {
  /** Answers one request. Never rejects: every failure becomes an OAuth error response. */
  handle(request: GatehouseRequest): Promise<GatehouseResponse>;
  /** The realm of that name, or undefined. */
  realm(name: string): Promise<Realm | undefined>;
  /** Rotates a realm's signing key; the old key stays in the JWKS until its tokens expired. */
  rotateKeys(realmName: string): Promise<void>;
  /** How the host's login and consent pages read and finish interactions. */
  readonly interactions: Interactions;
  /** How the authenticator's back end answers CIBA requests. */
  readonly ciba: CibaDecisions;
  readonly store: Store;
  readonly maxBodyBytes: number;
  /** Closes the store. */
  close(): Promise<void>;
}

/**
 * How the host's login and consent pages read and finish interactions. Both take the Cookie
 * header of the browser's request to the page: an interaction belongs to the browser that
 * started the authorization, so a login link forwarded to someone else shows nothing there.
 */
export interface Interactions {
  /**
   * The interaction, or undefined when it is unknown, expired, already finished, or the cookies
   * are not those of the browser that started it.
   */
  details(
    realmName: string,
    id: string,
    cookieHeader: string | undefined,
  ): Promise<InteractionDetails | undefined>;
  /**
   * Records the host's result and returns the URL to send the browser to with a 303. Rejects
   * with `InteractionError` for an interaction `details` would not show, or a result that does
   * not answer its prompt.
   */
  finish(
    realmName: string,
    id: string,
    result: InteractionResult,
    cookieHeader: string | undefined,
  ): Promise<string>;
}

/** The user's answer to a CIBA request, from the authenticator's back end. */
export interface CibaDecisions {
  /** Approves a pending request; false when it is unknown, expired or no longer pending. */
  approve(realmName: string, authReqId: string, approval?: CibaApproval): Promise<boolean>;
  /** Denies a pending request; false when it is unknown, expired or no longer pending. */
  deny(realmName: string, authReqId: string): Promise<boolean>;
}

export function createProvider(options: ProviderOptions): Provider {
  const { baseUrl, maxBodyBytes } = parseConfig(providerOptionsSchema, {
    baseUrl: options.baseUrl,
    maxBodyBytes: options.maxBodyBytes,
  });
  const push = options.authenticatorPush;
  const providerRules = (config: RealmConfig): ConfigIssue[] =>
    config.ciba && !push
      ? [{ path: 'ciba', message: 'needs an authenticatorPush in the provider options' }]
      : [];
  const realms: RealmSource =
    typeof options.realms === 'function'
      ? loaderRealmSource(options.realms, baseUrl, providerRules)
      : staticRealmSource(options.realms, baseUrl, providerRules);
  const now = options.now ?? Date.now;
  const onError = options.onError ?? ((error: unknown) => console.error('[gatehouse]', error));
  const store = options.store ?? new MemoryStore({ now });
  const context: ProviderContext = {
    store,
    keys: options.keys ?? new StoreKeyStore(store, { now }),
    signer: options.signer ?? webCryptoSigner(),
    now,
    maxBodyBytes,
    accounts: options.accounts ?? claimlessAccounts,
    interactionUrl:
      options.interactionUrl ??
      ((interaction) => `${baseUrl}/oauth/${interaction.realm}/interaction/${interaction.id}`),
    authenticatorPush: push,
    reportError: (error) => {
      try {
        onError(error, undefined);
      } catch {
        // A failing hook must not turn a background failure into an unhandled rejection.
      }
    },
  };
  // One context per realm object instead of a copy per request (a measurable share of a request).
  const realmContexts = new WeakMap<Realm, RealmContext>();
  const realmContext = (realm: Realm): RealmContext => {
    let built = realmContexts.get(realm);
    if (!built) {
      built = { ...context, realm };
      realmContexts.set(realm, built);
    }
    return built;
  };

  async function route(request: GatehouseRequest): Promise<GatehouseResponse> {
    const match = matchPath(request.path);
    const route = match && ROUTES.get(match.endpoint);
    if (!match || !route) throw notFound('no such endpoint');
    const realm = await realms.get(match.realmName);
    if (!realm) throw notFound('unknown realm');
    if (!route.methods.includes(request.method)) throw methodNotAllowed(route.methods);
    return route.handler(request, realmContext(realm));
  }

  return {
    async handle(request) {
      try {
        const response = await route(request);
        return request.method === 'HEAD' ? { ...response, body: undefined } : response;
      } catch (error) {
        return errorToResponse(error, (unexpected) => onError(unexpected, request));
      }
    },
    realm: (name) => realms.get(name),
    ciba: {
      async approve(realmName, authReqId, approval = {}) {
        const realm = await realms.get(realmName);
        return realm
          ? decideCibaRequest(realmContext(realm), authReqId, { approve: approval })
          : false;
      },
      async deny(realmName, authReqId) {
        const realm = await realms.get(realmName);
        return realm ? decideCibaRequest(realmContext(realm), authReqId, { deny: true }) : false;
      },
    },
    interactions: {
      async details(realmName, id, cookieHeader) {
        const realm = await realms.get(realmName);
        return realm && interactionDetails(realmContext(realm), id, cookieHeader);
      },
      async finish(realmName, id, result, cookieHeader) {
        const realm = await realms.get(realmName);
        if (!realm) throw new InteractionError(`unknown realm "${realmName}"`);
        return finishInteraction(realmContext(realm), id, result, cookieHeader);
      },
    },
    async rotateKeys(realmName) {
      const realm = await realms.get(realmName);
      if (!realm) throw new Error(`unknown realm "${realmName}"`);
      await context.keys.rotate(realm);
    },
    store,
    maxBodyBytes,
    close: () => store.close(),
  };
}
