export { type Account, type Accounts, claimlessAccounts } from './accounts/accounts.js';
export { claimsForScopes, SCOPE_CLAIMS } from './accounts/claims.js';
export type {
  AuthenticatorPush,
  CibaApproval,
  CibaNotification,
} from './ciba/authenticator-push.js';
export { type ClientConfig, type ClientInput, clientSchema } from './config/client.js';
export {
  ConfigError,
  type ConfigIssue,
  formatIssue,
  parseConfig,
  zodIssues,
} from './config/issues.js';
export { baseUrl as baseUrlSchema } from './config/primitives.js';
export {
  type RealmConfig,
  type RealmInput,
  realmSchema,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
} from './config/realm.js';
export { type ResourceConfig, type ResourceInput, resourceSchema } from './config/resource.js';
export { OAuthError, StoreUnavailableError } from './errors/oauth-error.js';
export {
  errorToResponse,
  oauthErrorResponse,
  payloadTooLargeResponse,
} from './errors/to-response.js';
export { escapeHtml } from './http/html.js';
export { isFormUrlEncoded } from './http/media-type.js';
export { type GatehouseRequest, type GatehouseResponse, joinHeaderValues } from './http/types.js';
export type {
  ConsentResult,
  InteractionDetails,
  InteractionPrompt,
  InteractionResult,
  LoginResult,
} from './interactions/interaction.js';
export { InteractionError } from './interactions/interactions.js';
export type { KeyStore } from './keys/key-store.js';
export type { JwsSigner, SigningKey } from './keys/signing-key.js';
export { StoreKeyStore } from './keys/store-key-store.js';
export { webCryptoSigner } from './keys/webcrypto-signer.js';
export {
  type CibaDecisions,
  createProvider,
  type Interactions,
  type Provider,
  type ProviderOptions,
} from './provider.js';
export type { Client, Realm } from './realms/realm.js';
export {
  type RealmLoader,
  type RealmSource,
  validateRealm,
  validateRealms,
} from './realms/realm-source.js';
export { MemoryStore } from './store/memory-store.js';
export type {
  ConsumeResult,
  RecordKey,
  RecordOptions,
  Revised,
  Store,
} from './store/store.js';
