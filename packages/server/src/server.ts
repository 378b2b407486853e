import {
  type AuthenticatorPush,
  createProvider,
  type JwsSigner,
  type Provider,
  type Store,
} from '@gatehouse/core';
import { gatehouse } from '@gatehouse/fastify';
import { nodeCryptoSigner } from '@gatehouse/node-crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { UserDirectory } from './accounts.js';
import { adminRoutes } from './admin.js';
import { providerRealm, type ServerConfig } from './config.js';
import { CsrfTokens } from './csrf.js';
import { healthRoutes } from './health.js';
import { interactionRoutes, redirectSources } from './interaction-routes.js';
import { LoginThrottle } from './login-throttle.js';
import { type ErrorReporter, stderrReporter } from './report-error.js';
import { createStore, redactStoreSecrets } from './store.js';
import { WebhookPush } from './webhook-push.js';

export interface ServerOptions {
  /** Replaces the store named in the config (tests inject failing stores). */
  store?: Store;
  signer?: JwsSigner;
  /**
   * Unexpected errors; by default one entry on stderr with the messages of the causes, never
   * with request data nor the store URL's password.
   */
  report?: ErrorReporter;
  /** How long `/healthz` waits for the store. Default 2 s. */
  healthTimeoutMs?: number;
  /** Milliseconds since the epoch, for the provider, the default store and the login throttle. */
  now?: () => number;
  /** Replaces the CIBA webhook push of the config (tests, or another channel to the authenticator). */
  authenticatorPush?: AuthenticatorPush;
}

export interface Server {
  app: FastifyInstance;
  provider: Provider;
  /** The config's users, as the provider's `Accounts` and the login page's password check. */
  users: UserDirectory;
}

/**
 * The standalone server: Gatehouse mounted at the root of a Fastify app (so realm R's issuer is
 * `{base_url}/oauth/R`), its login and consent pages at `{issuer}/interaction/{id}`, plus
 * `/healthz` and, when an admin_token is set, `/admin/*`. The store is the one `store` names
 * (a PostgreSQL store's schema must exist: see `migrateStore`). Closing the app closes the
 * provider and its store.
 */
export function buildServer(config: ServerConfig, options: ServerOptions = {}): Server {
  const report = options.report ?? stderrReporter((text) => redactStoreSecrets(text, config.store));
  const now = options.now ?? Date.now;
  const users = new UserDirectory(config.realms);
  const webhook = options.authenticatorPush
    ? undefined
    : new WebhookPush({ webhooks: cibaWebhooks(config), report });
  const provider = createProvider({
    baseUrl: config.base_url,
    realms: config.realms.map(providerRealm),
    store: options.store ?? createStore(config, { now }),
    signer: options.signer ?? nodeCryptoSigner(),
    accounts: users,
    interactionUrl: ({ realm, id }) =>
      `${config.base_url}/oauth/${encodeURIComponent(realm)}/interaction/${encodeURIComponent(id)}`,
    now,
    onError: report,
    authenticatorPush: options.authenticatorPush ?? webhook,
  });
  // No logger: request logs would carry credentials (Authorization headers, form bodies).
  // Only the peer is trusted, so the address is the one it appended to X-Forwarded-For: with
  // `true`, the left end, which the client writes, would count.
  const app = Fastify({
    logger: false,
    trustProxy: config.trust_proxy ? (_address, hop) => hop === 0 : false,
  });
  app.addHook('onClose', () => provider.close());
  if (webhook) app.addHook('onClose', async () => webhook.close());
  app.register(healthRoutes, { store: provider.store, timeoutMs: options.healthTimeoutMs ?? 2000 });
  if (config.admin_token !== undefined) {
    app.register(adminRoutes, { prefix: '/admin', provider, token: config.admin_token, report });
  }
  app.register(interactionRoutes, {
    interactions: provider.interactions,
    users,
    csrf: new CsrfTokens(config.cookie_secret),
    throttle: new LoginThrottle({ now }),
    baseUrl: config.base_url,
    formTargets: clientRedirectSources(config),
    report,
  });
  app.register(gatehouse, { provider });
  // Plain-text passwords are hashed in the background once the server listens rather than at the
  // first login (tests that only inject requests hash them when a login first needs them). A
  // failure is retried by that first login.
  app.addHook('onListen', (done) => {
    users.prepare().catch(() => {});
    done();
  });
  return { app, provider, users };
}

/** The CSP form-action sources of each client's redirect URIs, by realm and client. */
function clientRedirectSources(config: ServerConfig) {
  const sources = new Map(
    config.realms.flatMap((realm) =>
      realm.clients.map((client) => [
        `${realm.name}/${client.client_id}`,
        redirectSources(client.redirect_uris),
      ]),
    ),
  );
  return (realm: string, clientId: string) => sources.get(`${realm}/${clientId}`) ?? [];
}

/** The webhook URL of each realm with CIBA, by realm name. */
function cibaWebhooks(config: ServerConfig): Map<string, string> {
  return new Map(
    config.realms.flatMap((realm) =>
      realm.ciba ? [[realm.name, realm.ciba.authenticator.webhook_url] as const] : [],
    ),
  );
}
