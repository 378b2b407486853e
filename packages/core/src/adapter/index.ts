/**
 * `@gatehouse-oidc/core/adapter`: what an adapter needs to bind a provider to an HTTP framework
 * (docs/adapters.md): the exchange types, the body limit and a bounded body reader, the answers
 * an adapter gives itself before the provider sees a request, and the metadata paths at the
 * host's root; and, for a `JwsSigner` or `JwsVerifier` of one's own, the key cache the built-in
 * signers use and the RSA signature-length rule the built-in verifiers apply.
 */
import { recordedAdapterFacts } from '../http/adapter-facts.js';
import type { Provider } from '../provider.js';

export { OAuthError } from '../errors/oauth-error.js';
export { oauthErrorResponse, payloadTooLargeResponse } from '../errors/to-response.js';
export { isFormUrlEncoded, isJson } from '../http/media-type.js';
export { BODY_TOO_LARGE, readBodyStream } from '../http/read-body-stream.js';
export type { GatehouseRequest, GatehouseResponse } from '../http/types.js';
export { joinHeaderValues } from '../http/types.js';
export { KeyCache } from '../keys/key-cache.js';
export { fitsRsaModulus } from '../keys/rsa-signature-length.js';
export { signingMaterial } from '../keys/signing-key.js';
export { WELL_KNOWN_ROOTS, wellKnownRequest } from './well-known.js';

/**
 * The largest request body the provider accepts (its `maxBodyBytes` option). Answer a larger one
 * with `payloadTooLargeResponse()` without buffering more than this.
 */
export function bodyLimit(provider: Provider): number {
  return recordedAdapterFacts(provider).maxBodyBytes;
}
