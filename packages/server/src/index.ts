export {
  type Timers,
  type WebhookPayload,
  WebhookPush,
  type WebhookPushOptions,
} from './ciba/webhook-push.js';
export {
  ConfigFileError,
  loadConfig,
  parseServerConfig,
  type ServerConfig,
  type ServerConfigInput,
  serverConfigSchema,
} from './config/server-config.js';
export {
  DerivationSlots,
  hashPassword,
  parsePasswordHash,
  type ScryptHash,
  verifyPassword,
} from './login/password.js';
export type { UserDirectory } from './login/user-directory.js';
export { RealmSecretsUnreadable } from './realms/realm-secrets-unreadable.js';
export type { ErrorReporter } from './report-error.js';
export { buildServer, type Server, type ServerOptions } from './server.js';
export {
  createStore,
  describeStore,
  type MigrationOutcome,
  migrateStore,
  type StoreConfig,
  type StoreKind,
} from './store.js';
