import {
  type AuthenticatorPush,
  boundedFetcher,
  createProvider,
  fetchTransport,
  type JwsSigner,
  type JwsVerifier,
  type OutboundTransport,
  type Provider,
  type Store,
} from '@gatehouse-oidc/core';
import { gatehouse, gatehouseWellKnown } from '@gatehouse-oidc/fastify';
import { nodeCryptoSigner, nodeCryptoVerifier } from '@gatehouse-oidc/node-crypto';
import { nodeOutbound } from '@gatehouse-oidc/node-outbound';
import Fastify, { type FastifyInstance } from 'fastify';
import { adminRoutes } from './admin/routes.js';
import { WebhookPush, type WebhookPushOptions } from './ciba/webhook-push.js';
import { httpServerOptions } from './config/http-limits.js';
import type { ServerConfig } from './config/server-config.js';
import { eventLog } from './event-log.js';
import { healthRoutes } from './health.js';
import { CsrfTokens } from './login/csrf.js';
import { deviceRoutes } from './login/device-routes.js';
import { clientFormTargets } from './login/form-targets.js';
import { interactionRoutes } from './login/interaction-routes.js';
import { LoginThrottle } from './login/throttle.js';
import { UserDirectory } from './login/user-directory.js';
import { MESSAGES, pickLocale } from './pages/i18n.js';
import { ApiRealms } from './realms/api-realms.js';
import { RealmCatalog } from './realms/realm-catalog.js';
import { RealmEditor } from './realms/realm-editor.js';
import type { RealmSecretsUnreadable } from './realms/realm-secrets-unreadable.js';
import { SecretBox } from './realms/secret-box.js';
import { type ErrorReporter, stderrReporter } from './report-error.js';
import {
  createStore,
  createsSchemaOnStart,
  migrateStore,
  redactStoreSecrets,
  storeKind,
} from './store.js';
import { registeredTelemetry } from './telemetry.js';

export interface ServerOptions {
  /** Replaces the store named in the config (tests inject failing stores). */
  store?: Store;
  signer?: JwsSigner;
  verifier?: JwsVerifier;
  /**
   * Unexpected errors; by default one entry on stderr with the messages of the causes, never
   * with request data nor the store URL's password.
   */
  report?: ErrorReporter;
  /**
   * Where the lines operators must see go (default stderr): the events of docs/telemetry.md, and
   * realms of the admin API that cannot be served.
   */
  eventLog?: (line: string) => void;
  /** How long `/healthz` waits for the store. Default 2 s. */
  healthTimeoutMs?: number;
  /** Milliseconds since the epoch, for the provider, the default store and the login throttle. */
  now?: () => number;
  /**
   * The fetch of outbound calls (clients' jwks_uri, back-channel logout, CIBA pings), bounded
   * like the default; without it `nodeOutbound()`, which also keeps outside URLs off private
   * addresses.
   */
  fetch?: typeof fetch;
  /**
   * The transport of outbound calls, in place of `fetch`: `nodeOutbound({ ca })` to trust a
   * private CA beside Node.js's roots.
   */
  outbound?: OutboundTransport;
  /** Replaces the CIBA webhook push of the config (tests, or another channel to the authenticator). */
  authenticatorPush?: AuthenticatorPush;
  /**
   * The store's schema exists already: the app does not create it when it gets ready. `gatehouse
   * serve` creates it itself first, to say what it did and exit 1 when it cannot.
   */
  schemaReady?: boolean;
}

export interface Server {
  app: FastifyInstance;
  provider: Provider;
  /** The store the provider keeps its records in: the config's, or `options.store`. */
  store: Store;
  /** The config's users, as the provider's `Accounts` and the login page's password check. */
  users: UserDirectory;
  /**
   * The realms of the admin API whose client secrets do not open with this config's
   * cookie_secret; `gatehouse serve` warns of each as it starts. Rejects when the store does.
   */
  unreadableRealms(): Promise<RealmSecretsUnreadable[]>;
}

/**
 * The standalone server: Gatehouse mounted at the root of a Fastify app (so realm R's issuer is
 * `{base_url}/oauth/R`), its login and consent pages at `{issuer}/interaction/{id}`, each realm's
 * metadata also at `/.well-known/oauth-authorization-server{issuer path}` and
 * `/.well-known/openid-configuration{issuer path}` (RFC 8414 §3.1), plus `/healthz` and, when
 * an admin_token is set, `/admin/*`. The store is the one `store` names;
 * a PostgreSQL store's schema is created when the app gets ready, unless `migrate_on_start` is
 * false. Closing the app closes the provider and its store.
 */
export function buildServer(config: ServerConfig, options: ServerOptions = {}): Server {
  const report = options.report ?? stderrReporter((text) => redactStoreSecrets(text, config.store));
  const now = options.now ?? Date.now;
  const store = options.store ?? createStore(config, { now });
  const operatorLog = options.eventLog ?? ((line: string) => process.stderr.write(line));
  const apiRealms = new ApiRealms(store, new SecretBox(config.cookie_secret));
  const catalog = new RealmCatalog({
    fileRealms: config.realms,
    apiRealms,
    now,
    warn: operatorLog,
  });
  const users = new UserDirectory((realm) => catalog.known(realm)?.users);
  // One transport for every outbound request: the provider's and the CIBA webhook's.
  const outbound =
    options.outbound ?? (options.fetch ? fetchTransport(options.fetch) : nodeOutbound());
  const webhook = options.authenticatorPush
    ? undefined
    : new WebhookPush({
        webhooks: cibaWebhooks(catalog),
        report,
        maxConcurrentPerRealm: config.limits.ciba_pushes_at_once,
        maxQueuedPerRealm: config.limits.ciba_pushes_queued,
        fetcher: boundedFetcher(outbound),
      });
  // Spans and counters for an OpenTelemetry SDK registered before the server is built.
  const instrumentation = registeredTelemetry();
  const provider = createProvider({
    baseUrl: config.base_url,
    realms: catalog.load,
    store,
    signer: options.signer ?? nodeCryptoSigner(),
    verifier: options.verifier ?? nodeCryptoVerifier(),
    accounts: users,
    interactionUrl: ({ realm, id }) =>
      `${config.base_url}/oauth/${encodeURIComponent(realm)}/interaction/${encodeURIComponent(id)}`,
    // The page of login/device-routes.ts.
    deviceVerificationUrl: (realm) =>
      `${config.base_url}/oauth/${encodeURIComponent(realm)}/device`,
    now,
    limits: {
      interactionsPerRealm: config.limits.interactions_per_realm,
      logoutConfirmationsPerRealm: config.limits.logout_confirmations_per_realm,
      deviceRequestsPerRealm: config.limits.device_requests_per_realm,
    },
    outbound,
    // The logout pages speak the language the login pages would for the same ui_locales.
    logoutMessages: (uiLocales) => MESSAGES[pickLocale(uiLocales)].logout,
    onError: report,
    onEvent: eventLog(operatorLog),
    ...(instrumentation ? { instrumentation } : {}),
    authenticatorPush: options.authenticatorPush ?? webhook,
  });
  // No logger: request logs would carry credentials (Authorization headers, form bodies).
  // Only the peer is trusted, so the address is the one it appended to X-Forwarded-For: with
  // `true`, the left end, which the client writes, would count.
  const app = Fastify({
    logger: false,
    trustProxy: config.trust_proxy ? (_address, hop) => hop === 0 : false,
    ...httpServerOptions(config.http_limits),
  });
  // "Stores start by themselves": the config's PostgreSQL schema is created, when missing, before
  // the app answers (app.ready() or app.listen() rejects when that fails).
  if (!options.store && !options.schemaReady && createsSchemaOnStart(config))
    app.addHook('onReady', async () => void (await migrateStore(config)));
  app.addHook('onClose', () => provider.close());
  if (webhook) app.addHook('onClose', async () => webhook.close());
  app.register(healthRoutes, { store, timeoutMs: options.healthTimeoutMs ?? 2000 });
  if (config.admin_token !== undefined) {
    const editor = new RealmEditor({
      catalog,
      apiRealms,
      secretsWouldBeLost:
        config.cookie_secret === undefined && storeKind(config.store) !== 'memory',
      now,
    });
    app.register(adminRoutes, {
      prefix: '/admin',
      provider,
      store,
      token: config.admin_token,
      report,
      accounts: users,
      now,
      ipv6PrefixLength: config.ipv6_prefix_length,
      realms: { catalog, editor },
    });
  }
  const csrf = new CsrfTokens(config.cookie_secret);
  // One throttle for both pages: wrong user codes and wrong passwords share an address's limit.
  const throttle = new LoginThrottle({ now, ipv6PrefixLength: config.ipv6_prefix_length });
  app.register(interactionRoutes, {
    interactions: provider.interactions,
    users,
    csrf,
    throttle,
    baseUrl: config.base_url,
    formTargets: clientFormTargets(catalog),
    report,
  });
  app.register(deviceRoutes, {
    device: provider.device,
    realmExists: async (name) => (await provider.realm(name)) !== undefined,
    csrf,
    throttle,
    baseUrl: config.base_url,
    report,
  });
  app.register(gatehouse, { provider });
  app.register(gatehouseWellKnown, { provider });
  // Plain-text passwords are hashed in the background once the server listens rather than at the
  // first login (tests that only inject requests hash them when a login first needs them). A
  // failure is retried by that first login.
  app.addHook('onListen', (done) => {
    users.prepare(config.realms.map((realm) => realm.name)).catch(() => {});
    done();
  });
  // A name the config file also has is never served from the store, so cannot be unreadable.
  const unreadableRealms = async () =>
    (await apiRealms.unreadable()).filter((problem) => !catalog.isFileRealm(problem.realm));
  return { app, provider, store, users, unreadableRealms };
}

/** The webhook URL of each realm with CIBA, by realm name. */
function cibaWebhooks(catalog: RealmCatalog): WebhookPushOptions['webhooks'] {
  return { get: (realm) => catalog.known(realm)?.ciba?.authenticator.webhook_url };
}
