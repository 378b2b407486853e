export { type Account, type Accounts, claimlessAccounts } from './accounts/accounts.js';
export { claimsForScopes, SCOPE_CLAIMS } from './accounts/claims.js';
export type {
  AuthenticatorPush,
  CibaApproval,
  CibaNotification,
} from './ciba/authenticator-push.js';
export { CibaPingError } from './ciba/ping.js';
export { type ClientConfig, type ClientInput, clientSchema } from './config/client.js';
export {
  ConfigError,
  type ConfigIssue,
  formatIssue,
  parseConfig,
  zodIssues,
} from './config/issues.js';
export { baseUrl as baseUrlSchema } from './config/primitives.js';
export { providerLimitsSchema } from './config/provider.js';
export {
  type RealmConfig,
  type RealmInput,
  realmSchema,
  SIGNING_ALGORITHMS,
  type SigningAlgorithm,
} from './config/realm.js';
export { type ResourceConfig, type ResourceInput, resourceSchema } from './config/resource.js';
export { type Salvaged, salvage } from './config/salvage.js';
export {
  DEFAULT_SECRET_OVERLAP_SECONDS,
  rotateClientSecret,
  type SecretRotation,
  type SecretRotationOptions,
} from './config/secret-rotation.js';
export type { GrantSummary } from './consent/grants-api.js';
export type { AllowClientIdMetadataDocument } from './context.js';
export type { ErrorCode, ErrorDialect } from './errors/codes.js';
export { OAuthError, StoreUnavailableError } from './errors/oauth-error.js';
export { errorToResponse, oauthErrorResponse } from './errors/to-response.js';
export type { EventListener } from './events/emit.js';
export type {
  BackchannelLogoutFailedEvent,
  CibaPingEvent,
  ClientAuthenticationFailedEvent,
  ClientRegistrationEvent,
  ClientTokensRevokedEvent,
  ConsentEvent,
  EventBase,
  GatehouseEvent,
  GrantRevokedEvent,
  IssuedTokenType,
  LogoutEvent,
  ReuseDetectedEvent,
  SessionEndedEvent,
  SessionEndReason,
  SignInEvent,
  TokenIssuedEvent,
  TokenRevokedEvent,
} from './events/events.js';
export { escapeHtml } from './http/html.js';
export type { GatehouseRequest, GatehouseResponse } from './http/types.js';
export type {
  ConsentResult,
  InteractionDetails,
  InteractionPrompt,
  InteractionResult,
  LoginResult,
} from './interactions/interaction.js';
export { InteractionError } from './interactions/interactions.js';
export type { JwsVerifier, VerificationAlgorithm } from './keys/jws-verifier.js';
export type { KeyStore } from './keys/key-store.js';
export type { JwsSigner, KeyPairJwks, PublicJwk, SigningKey } from './keys/signing-key.js';
export { StoreKeyStore } from './keys/store-key-store.js';
export { webCryptoSigner } from './keys/webcrypto-signer.js';
export { webCryptoVerifier } from './keys/webcrypto-verifier.js';
export { BackchannelLogoutError } from './logout/backchannel-delivery.js';
export { ENGLISH_LOGOUT_MESSAGES, type LogoutMessages } from './logout/messages.js';
export {
  boundedFetcher,
  DEFAULT_OUTBOUND_LIMITS,
  type OutboundLimits,
} from './outbound/bounded-fetcher.js';
export { fetchTransport } from './outbound/fetch-transport.js';
export {
  OutboundError,
  type OutboundFailure,
  type OutboundFetcher,
  type OutboundRequest,
  type OutboundResponse,
  type OutboundTransport,
  type TransportRequest,
  type UrlAuthor,
} from './outbound/outbound.js';
export {
  type CibaDecisions,
  type Clients,
  createProvider,
  type DeviceVerification,
  type Grants,
  type Interactions,
  type Provider,
  type ProviderOptions,
  type Sessions,
} from './provider.js';
export type { Client, ClientSource, PreviousSecret, Realm, RemoteJwks } from './realms/realm.js';
export {
  type ProviderRealmRules,
  parsedRealm,
  type RealmLoader,
  type RealmSource,
  validateRealm,
  validateRealms,
} from './realms/realm-source.js';
export { LOADED_REALMS_LIMIT, RecentlyUsed } from './realms/recently-used.js';
export type { RegisteredClientInfo } from './registration/client-info.js';
export type { RegisteredMetadata } from './registration/client-metadata.js';
export type { SessionSummary } from './sessions/sessions-api.js';
export { checkCappedOptions } from './store/cap-groups.js';
export { consumeIfStepwise } from './store/consume-if.js';
export {
  DEFAULT_MAX_BYTES as MEMORY_STORE_DEFAULT_MAX_BYTES,
  MemoryStore,
  type MemoryStoreOptions,
} from './store/memory-store.js';
export {
  type CappedRecordOptions,
  type ConditionalConsumeResult,
  type ConsumeResult,
  type FieldConditions,
  REVOKED_GRANT_SECONDS,
  type RecordCap,
  type RecordKey,
  type RecordOptions,
  type ReplaceOptions,
  type Revised,
  type Store,
  type StoreMetrics,
} from './store/store.js';
export type {
  Instrumentation,
  InstrumentedRequest,
  RequestInstrument,
  RequestOutcome,
} from './telemetry/instrumentation.js';
