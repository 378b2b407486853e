import { TokenError } from './token-error.js';

/** An access token as the request presented it: the scheme, and the proof that came with DPoP. */
export interface PresentedToken {
  scheme: 'Bearer' | 'DPoP';
  token: string;
  /** The `DPoP` header's proof (RFC 9449 §4), read only under the DPoP scheme. */
  proof?: string;
}

/** The headers a verification reads; a Web `Headers` is one. */
export interface RequestHeaders {
  get(name: string): string | null;
}

/** `b64token` of RFC 6750 §2.1, the syntax both schemes use for the token. */
const CREDENTIALS = /^(Bearer|DPoP) +([A-Za-z0-9\-._~+/]+=*)$/i;
const JWS_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The token of the Authorization header (RFC 6750 §2.1, RFC 9449 §7.1), or undefined when the
 * request carries none in a scheme the kit reads (no header, Basic…), which is answered with a
 * bare challenge. A malformed one is `invalid_request`; so is a DPoP token without exactly one
 * proof. Tokens in the query or a form body are not read (RFC 9700 §4.3.2 discourages them).
 */
export function presentedToken(headers: RequestHeaders): PresentedToken | undefined {
  const authorization = headers.get('authorization');
  if (authorization === null) return undefined;
  const scheme = /^\s*(\S+)/.exec(authorization)?.[1]?.toLowerCase();
  if (scheme !== 'bearer' && scheme !== 'dpop') return undefined;
  const match = CREDENTIALS.exec(authorization);
  if (!match?.[2]) {
    throw new TokenError('invalid_request', 'the Authorization header is malformed');
  }
  if (scheme === 'bearer') return { scheme: 'Bearer', token: match[2] };
  // Several DPoP headers arrive joined by commas, which a JWS never holds.
  const proof = headers.get('dpop')?.trim();
  if (!proof || !JWS_COMPACT.test(proof)) {
    throw new TokenError('invalid_dpop_proof', 'a DPoP token needs exactly one DPoP proof');
  }
  return { scheme: 'DPoP', token: match[2], proof };
}

/** Whether a token has the shape of a JWS (three base64url parts), so is verified locally. */
export const isJwtShaped = (token: string): boolean => JWS_COMPACT.test(token);
