import { type Accounts, claimlessAccounts } from './accounts/accounts.js';
import { startDeviceVerification } from './authorization/device-verification.js';
import type { AuthenticatorPush, CibaApproval } from './ciba/authenticator-push.js';
import { decideCibaRequest } from './ciba/decide.js';
import { RemoteKeySets } from './client-auth/remote-key-sets.js';
import { MetadataDocumentClients } from './client-metadata/document-clients.js';
import type { ConfigIssue } from './config/issues.js';
import {
  type CheckedOptionName,
  type ProviderLimits,
  parseProviderOptions,
} from './config/provider.js';
import type { RealmConfig, RealmInput } from './config/realm.js';
import { type GrantSummary, listGrants, revokeUserGrant } from './consent/grants-api.js';
import type { AllowClientIdMetadataDocument, ProviderContext, RealmContext } from './context.js';
import { DpopNonces } from './dpop/nonces.js';
import type { ErrorDialect } from './errors/codes.js';
import { methodNotAllowed, OAuthError } from './errors/oauth-error.js';
import { errorToResponse } from './errors/to-response.js';
import { type EventListener, emitEvent, eventSink } from './events/emit.js';
import { rememberAdapterFacts } from './http/adapter-facts.js';
import { ANY_ORIGIN, preflightResponse, withAnyOriginCors, withRealmCors } from './http/cors.js';
import type { GatehouseRequest, GatehouseResponse } from './http/types.js';
import type { InteractionDetails, InteractionResult } from './interactions/interaction.js';
import {
  finishInteraction,
  InteractionError,
  interactionDetails,
} from './interactions/interactions.js';
import type { JwsVerifier } from './keys/jws-verifier.js';
import type { KeyStore } from './keys/key-store.js';
import type { JwsSigner } from './keys/signing-key.js';
import { StoreKeyStore } from './keys/store-key-store.js';
import { webCryptoSigner } from './keys/webcrypto-signer.js';
import { webCryptoVerifier } from './keys/webcrypto-verifier.js';
import { revokeClientTokens } from './lifecycle/client-revocation.js';
import { BackchannelDelivery } from './logout/backchannel-delivery.js';
import { ENGLISH_LOGOUT_MESSAGES, type LogoutMessages } from './logout/messages.js';
import { boundedFetcher } from './outbound/bounded-fetcher.js';
import { fetchTransport } from './outbound/fetch-transport.js';
import type { OutboundTransport } from './outbound/outbound.js';
import type { Realm } from './realms/realm.js';
import {
  loaderRealmSource,
  type RealmLoader,
  type RealmSource,
  staticRealmSource,
} from './realms/realm-source.js';
import { type RegisteredClientInfo, registeredClientInfo } from './registration/client-info.js';
import {
  registeredClientIds,
  registeredClientRecord,
  removeRegisteredClient,
} from './registration/registered-clients.js';
import { findRoute, matchPath, type Route } from './router.js';
import {
  endSessionBySid,
  endUserSessions,
  listSessions,
  type SessionSummary,
} from './sessions/sessions-api.js';
import { MemoryStore } from './store/memory-store.js';
import type { Store } from './store/store.js';
import type { Instrumentation } from './telemetry/instrumentation.js';
import { instrumented, type ResolvedRequest } from './telemetry/instrumented.js';

export interface ProviderOptions {
  /** Public origin (plus mount path) Gatehouse is reached at; realm R's issuer is `{baseUrl}/oauth/R`. */
  baseUrl: string;
  /** Static realm configurations, or the host application's loader. */
  realms: readonly RealmInput[] | RealmLoader;
  /** Defaults to an in-memory store (one process). */
  store?: Store;
  /** Defaults to keys generated on first use and persisted in `store`. */
  keys?: KeyStore;
  /** Defaults to WebCrypto; `@gatehouse-oidc/node-crypto` is faster on Node.js. */
  signer?: JwsSigner;
  /**
   * Checks the signatures of JWTs presented to the provider. Defaults to WebCrypto;
   * `nodeCryptoVerifier()` of `@gatehouse-oidc/node-crypto` costs half the CPU on Node.js.
   */
  verifier?: JwsVerifier;
  /** The host's user store; without it users have no claims beyond `sub`. */
  accounts?: Accounts;
  /**
   * The URL of the host's login or consent page for an interaction (see docs/interactions.md).
   * Default: `{issuer}/interaction/{id}`, where the standalone server serves its pages.
   */
  interactionUrl?: (interaction: InteractionDetails) => string;
  /**
   * The URL of the host's page where users type a device's user code: the `verification_uri`
   * of the device authorization grant (RFC 8628, docs/device-flow.md). The browser comes back
   * to it when the user has answered. Default: `{issuer}/device`, where the standalone server
   * serves its page.
   */
  deviceVerificationUrl?: (realmName: string) => string;
  /** Reaches users' authenticator apps; required when a realm enables CIBA. */
  authenticatorPush?: AuthenticatorPush;
  /**
   * The words of the logout pages in the language the logout request's `ui_locales` (the
   * preferred first; possibly none) asks for, or the nearest the host has. Default: English.
   */
  logoutMessages?: (uiLocales: readonly string[]) => LogoutMessages;
  /** Milliseconds since the epoch. */
  now?: () => number;
  /**
   * What every outbound request is sent with (clients' jwks_uri, back-channel logout tokens,
   * client metadata documents), inside the provider's bounds of time and bytes, never following
   * a redirect: on Node.js `nodeOutbound()` of `@gatehouse-oidc/node-outbound`, which also keeps
   * URLs that came from outside off private addresses. Default: `fetchTransport(options.fetch)`.
   */
  outbound?: OutboundTransport;
  /**
   * The fetch of the default transport (tests, or a runtime's own). Default: the global fetch.
   * Not with `outbound`.
   */
  fetch?: typeof fetch;
  /**
   * Where realms that take Client ID Metadata Documents may take them from, beside each realm's
   * `allowed_hosts`: called with the document's URL and the realm's name before anything is
   * fetched; false refuses the client with `invalid_client`. Default: the realms' settings alone.
   */
  allowClientIdMetadataDocument?: AllowClientIdMetadataDocument;
  /**
   * Largest accepted request body; larger ones get 413. Default 64 KiB. Adapters read it with
   * `bodyLimit` from `@gatehouse-oidc/core/adapter`.
   */
  maxBodyBytes?: number;
  /** Bounds on the records requests nobody authenticated create (docs/security.md). */
  limits?: Partial<ProviderLimits>;
  /**
   * Receives every unexpected error (the client only sees `server_error`), with the request it
   * happened in, if any. Default: console.error.
   */
  onError?: (error: unknown, request: GatehouseRequest | undefined) => void;
  /**
   * Receives every event (sign-in, consent, tokens issued, reuse detected, revocation, logout,
   * session ended, failed client authentication: docs/telemetry.md), identifiers only, never a
   * secret or a token. Called after the step that caused the event and never awaited; what it
   * throws or rejects with goes to `onError`. It runs on the request's event loop: hand slow work
   * (I/O) to a promise or a queue rather than doing it synchronously.
   */
  onEvent?: EventListener;
  /**
   * Traces and metrics (docs/telemetry.md): `openTelemetry()` of
   * `@gatehouse-oidc/core/opentelemetry`, or your own. Without one, requests pay for none.
   */
  instrumentation?: Instrumentation;
}

/** A request whose realm and endpoint exist. */
interface Resolved extends ResolvedRequest {
  route: Route;
}

export interface Provider {
  /** Answers one request. Never rejects: every failure becomes an OAuth error response. */
  handle(request: GatehouseRequest): Promise<GatehouseResponse>;
  /** The realm of that name, or undefined. */
  realm(name: string): Promise<Realm | undefined>;
  /** Rotates a realm's signing key; the old key stays in the JWKS until its tokens expired. */
  rotateKeys(realmName: string): Promise<void>;
  /**
   * Makes the realm's current key of its `signing_alg` now, unless it has one, so that its first
   * token need not wait for it: for a host that creates realms. Keys of the other algorithms
   * (RS256 for ID tokens) are made when first needed; an RSA key takes tens of milliseconds.
   */
  prepareKeys(realmName: string): Promise<void>;
  /** How the host's login and consent pages read and finish interactions. */
  readonly interactions: Interactions;
  /** How the authenticator's back end answers CIBA requests. */
  readonly ciba: CibaDecisions;
  /** How the host's verification page hands a device's user code to the sign-in. */
  readonly device: DeviceVerification;
  /** Users' sessions: list them, end one, end all of a user's (log out everywhere). */
  readonly sessions: Sessions;
  /** Users' grants to clients: list them, revoke one. */
  readonly grants: Grants;
  /** Clients' tokens: revoke all of a client's at once. */
  readonly clients: Clients;
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

/**
 * The host's verification page of the device authorization grant (docs/device-flow.md). The
 * answer ends at the same page: `?result=approved` or `?error=access_denied` (with `iss`).
 */
export interface DeviceVerification {
  /**
   * Starts the sign-in of the device request whose user code the user typed (any case, with or
   * without the dash and spaces): the usual login interaction when the browser has no session,
   * then always a consent interaction. Resolves to where to send the browser with a 303 and the
   * cookies to set, or undefined when the code names no request the user may still answer
   * (unknown, expired, already answered). Count every undefined as a failed guess of the
   * browser's address and throttle it: user codes are short so that people can type them.
   * `cookieHeader` is the Cookie header of the browser's request to the page, as for
   * interactions; `uiLocales` the languages of the pages that follow.
   */
  start(
    realmName: string,
    userCode: string,
    browser: { cookieHeader: string | undefined; uiLocales?: readonly string[] },
  ): Promise<{ location: string; cookies: string[] } | undefined>;
}

/** The user's answer to a CIBA request, from the authenticator's back end. */
export interface CibaDecisions {
  /** Approves a pending request; false when it is unknown, expired or no longer pending. */
  approve(realmName: string, authReqId: string, approval?: CibaApproval): Promise<boolean>;
  /** Denies a pending request; false when it is unknown, expired or no longer pending. */
  deny(realmName: string, authReqId: string): Promise<boolean>;
}

/**
 * A user's sessions in a realm (docs/sessions-and-grants.md). Ending a session signs its browser
 * out, revokes the codes and tokens its clients received in it, and notifies those clients
 * (back-channel logout). Each method rejects for an unknown realm.
 */
export interface Sessions {
  /** The user's live sessions, the most recently authenticated first. */
  list(realmName: string, sub: string): Promise<SessionSummary[]>;
  /** Ends the session with this sid; false when no live session has it. */
  end(realmName: string, sid: string): Promise<boolean>;
  /** Ends every live session of the user; resolves with how many ended. */
  endAll(realmName: string, sub: string): Promise<number>;
}

/**
 * A user's grants to clients in a realm (docs/sessions-and-grants.md): what the user consented
 * to, or what a client that skips consent was given. Each method rejects for an unknown realm.
 */
export interface Grants {
  /** The user's grants, the oldest first. */
  list(realmName: string, sub: string): Promise<GrantSummary[]>;
  /**
   * Revokes the user's grant to the client: every code, access token and refresh token the
   * client holds for the user stops working, the client is notified (back-channel logout), and
   * its next authorization asks for consent again. False when there is no such grant.
   */
  revoke(realmName: string, sub: string, clientId: string): Promise<boolean>;
}

/**
 * What a realm's clients hold (docs/client-authentication.md#rotating-a-secret). Each method
 * rejects for an unknown realm.
 */
export interface Clients {
  /**
   * Every access and refresh token the client holds stops working at once (introspection
   * inactive, userinfo 401, the refresh grant `invalid_grant`), at every instance sharing the
   * store; tokens issued afterwards work. For a leaked secret, and before a client is deleted:
   * one created again under the same client_id then never revives them. JWT access tokens under
   * the no-store policy stay valid until they expire. Consents are kept.
   */
  revokeTokens(realmName: string, clientId: string): Promise<void>;
  /**
   * The client_ids of the clients registered in the realm (RFC 7591), the oldest first; those
   * unused for the realm's `unused_client_seconds` are removed first.
   */
  listRegistered(realmName: string): Promise<string[]>;
  /** A registered client's metadata as its registration answered it, without credentials. */
  registered(realmName: string, clientId: string): Promise<RegisteredClientInfo | undefined>;
  /** Removes a registered client and every token it holds; false when there is none. */
  deleteRegistered(realmName: string, clientId: string): Promise<boolean>;
}

/** Compiles only while every option of ProviderOptions is checked at run time. */
const everyOptionChecked: Exclude<keyof ProviderOptions, CheckedOptionName> extends never
  ? true
  : never = true;
void everyOptionChecked;

export function createProvider(options: ProviderOptions): Provider {
  const { baseUrl, maxBodyBytes, limits } = parseProviderOptions(options);
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
  const { instrumentation } = options;
  const onError = options.onError ?? ((error: unknown) => console.error('[gatehouse]', error));
  const store = options.store ?? new MemoryStore({ now });
  const reportError = (error: unknown) => {
    try {
      onError(error, undefined);
    } catch {
      // A failing hook must not turn a background failure into an unhandled rejection.
    }
  };
  const outbound = boundedFetcher(options.outbound ?? fetchTransport(options.fetch));
  const signer = options.signer ?? webCryptoSigner();
  const generateKeyPair = signer.generateKeyPair?.bind(signer);
  const context: ProviderContext = {
    store,
    keys:
      options.keys ??
      new StoreKeyStore(store, { now, ...(generateKeyPair && { generateKeyPair }) }),
    signer,
    verifier: options.verifier ?? webCryptoVerifier(),
    now,
    maxBodyBytes,
    limits,
    accounts: options.accounts ?? claimlessAccounts,
    interactionUrl:
      options.interactionUrl ??
      ((interaction) => `${baseUrl}/oauth/${interaction.realm}/interaction/${interaction.id}`),
    deviceVerificationUrl:
      options.deviceVerificationUrl ?? ((realmName) => `${baseUrl}/oauth/${realmName}/device`),
    authenticatorPush: push,
    outbound,
    remoteKeySets: new RemoteKeySets(now, reportError, {}, outbound),
    metadataDocumentClients: new MetadataDocumentClients(now, outbound),
    dpopNonces: new DpopNonces(store, now),
    allowClientIdMetadataDocument: options.allowClientIdMetadataDocument,
    backchannel: new BackchannelDelivery(reportError, {}, outbound),
    logoutMessages: options.logoutMessages ?? (() => ENGLISH_LOGOUT_MESSAGES),
    reportError,
    events: eventSink(options.onEvent, instrumentation, reportError),
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

  /** The context of a realm the host names; rejects when there is no such realm. */
  async function namedRealm(realmName: string): Promise<RealmContext> {
    const realm = await realms.get(realmName);
    if (!realm) throw new Error(`unknown realm "${realmName}"`);
    return realmContext(realm);
  }

  /** The endpoint a request is for, and its realm; not_found or 405 when there is none. */
  async function resolve(request: GatehouseRequest): Promise<Resolved> {
    const match = matchPath(request.path);
    const found = match && findRoute(match.endpoint);
    if (!match || !found) throw new OAuthError('not_found', 'no such endpoint');
    const realm = await realms.get(match.realmName);
    if (!realm) throw new OAuthError('not_found', 'unknown realm');
    const { route, name } = found;
    if (!route.methods.includes(request.method)) throw methodNotAllowed(route.methods);
    return { route, realm, endpoint: name };
  }

  /** The answer of a resolved request, or of its failure; never rejects. */
  async function answer(request: GatehouseRequest, resolved: Resolved): Promise<GatehouseResponse> {
    const { route, realm } = resolved;
    try {
      if (request.method === 'OPTIONS' && route.cors) {
        const origins = route.cors === 'any-origin' ? ANY_ORIGIN : realm.corsOrigins;
        return preflightResponse(request, route.methods, origins);
      }
      return await route.handler(request, realmContext(realm));
    } catch (error) {
      const response = failed(request, error, route.errorDialect ?? realm.errorDialect);
      if (route.cors === 'any-origin') return withAnyOriginCors(response, request);
      return route.cors ? withRealmCors(response, request, realm) : response;
    }
  }

  const failed = (request: GatehouseRequest, error: unknown, dialect: ErrorDialect) =>
    errorToResponse(error, (unexpected) => onError(unexpected, request), dialect);

  const provider: Provider = {
    async handle(request) {
      let resolved: Resolved;
      try {
        resolved = await resolve(request);
      } catch (error) {
        return failed(request, error, 'interface');
      }
      const response = instrumentation
        ? await instrumented(instrumentation, request, resolved, answer, reportError)
        : await answer(request, resolved);
      return request.method === 'HEAD' ? { ...response, body: undefined } : response;
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
    device: {
      async start(realmName, userCode, browser) {
        const realm = await realms.get(realmName);
        const response =
          realm && (await startDeviceVerification(realmContext(realm), userCode, browser));
        const location = response?.headers.location;
        // The start always hands the user to a login or consent page: a redirect.
        return location === undefined
          ? undefined
          : { location, cookies: [...(response?.cookies ?? [])] };
      },
    },
    sessions: {
      list: async (realmName, sub) => listSessions(await namedRealm(realmName), sub),
      end: async (realmName, sid) => endSessionBySid(await namedRealm(realmName), sid),
      endAll: async (realmName, sub) => endUserSessions(await namedRealm(realmName), sub),
    },
    grants: {
      list: async (realmName, sub) => listGrants(await namedRealm(realmName), sub),
      revoke: async (realmName, sub, clientId) =>
        revokeUserGrant(await namedRealm(realmName), sub, clientId),
    },
    clients: {
      async revokeTokens(realmName, clientId) {
        const realm = await namedRealm(realmName);
        await revokeClientTokens(realm, clientId);
        emitEvent(realm, { type: 'client_tokens_revoked', clientId });
      },
      listRegistered: async (realmName) => registeredClientIds(await namedRealm(realmName)),
      async registered(realmName, clientId) {
        const realm = await namedRealm(realmName);
        const record = await registeredClientRecord(realm, clientId);
        return record && registeredClientInfo(record);
      },
      deleteRegistered: async (realmName, clientId) =>
        removeRegisteredClient(await namedRealm(realmName), clientId),
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
      await context.keys.rotate((await namedRealm(realmName)).realm);
    },
    async prepareKeys(realmName) {
      await context.keys.currentKey((await namedRealm(realmName)).realm);
    },
    close: () => store.close(),
  };
  // The path clients send for the base URL: where RFC 8414 path insertion puts the issuer's path.
  const basePath = new URL(baseUrl).pathname.replace(/\/$/, '');
  rememberAdapterFacts(provider, { maxBodyBytes, basePath });
  return provider;
}
