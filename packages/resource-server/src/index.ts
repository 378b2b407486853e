/**
 * `@gatehouse-oidc/resource-server`: protect an API or an MCP server with the access tokens of
 * Gatehouse or any RFC 9068 authorization server — RFC 9728 metadata, JWT and introspected
 * tokens, RFC 6750 challenges, DPoP. Framework-free: `verify` takes a Web `Request`; the
 * `/express`, `/fastify` and `/hono` entries wrap it as middleware.
 */
export type { AccessToken, AccessTokenClaims } from './access-token.js';
export type { Denial } from './challenge.js';
export type { IntrospectionOptions } from './introspection.js';
export {
  metadataPathOf,
  metadataUrlOf,
  type ProtectedResourceMetadata,
  protectedResourceMetadata,
} from './metadata.js';
export type { DpopOptions, ResourceServerOptions } from './options.js';
export type { RequestHeaders } from './presented-token.js';
export type { KeySetLimits } from './remote-key-set.js';
export {
  type MemoryReplayCacheOptions,
  memoryReplayCache,
  type ReplayCache,
} from './replay-cache.js';
export {
  type Admission,
  createResourceServer,
  type ProtectedRequest,
  type Requirement,
  type ResourceServer,
  type Verdict,
} from './resource-server.js';
export type { TokenErrorCode } from './token-error.js';
