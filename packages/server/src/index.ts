export {
  ConfigFileError,
  loadConfig,
  parseServerConfig,
  type ServerConfig,
  type ServerConfigInput,
  serverConfigSchema,
} from './config.js';
export { hashPassword, parsePasswordHash, type ScryptHash, verifyPassword } from './password.js';
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
export { type WebhookPayload, WebhookPush, type WebhookPushOptions } from './webhook-push.js';
