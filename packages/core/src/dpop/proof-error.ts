import { OAuthError } from '../errors/oauth-error.js';

/** A proof the server cannot accept (RFC 9449 §5, §7.1); the caller decides how it is answered. */
export const invalidProof = (description: string, cause?: unknown) =>
  new OAuthError('invalid_dpop_proof', description, { cause });
