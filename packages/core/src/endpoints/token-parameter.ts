import { OAuthError } from '../errors/oauth-error.js';
import type { Params } from '../http/form.js';

/**
 * The `token` parameter of introspection (RFC 7662 §2.1) and revocation (RFC 7009 §2.1).
 * `token_type_hint` is only a hint: every supported kind of token is searched whatever it says,
 * so an unknown value is ignored as both RFCs allow.
 */
export function requiredToken(params: Params): string {
  const token = params.get('token');
  if (token === undefined) throw new OAuthError('invalid_request', 'token is required');
  return token;
}
