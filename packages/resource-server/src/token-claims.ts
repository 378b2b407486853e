import type { JWTVerifyGetKey } from 'jose';
import type { AccessToken, AccessTokenClaims } from './access-token.js';
import { DEFAULT_FETCH_LIMITS } from './bounded-fetch.js';
import { introspector } from './introspection.js';
import { issuerMetadataLoader } from './issuer-metadata.js';
import { verifyJwtAccessToken } from './jwt-access-token.js';
import { type ResourceServerOptions, seconds, tokenAlgorithms } from './options.js';
import { isJwtShaped } from './presented-token.js';
import { DEFAULT_KEY_SET_LIMITS, remoteKeySet } from './remote-key-set.js';
import { TokenError, UpstreamError } from './token-error.js';

export interface VerifiedClaims {
  claims: AccessTokenClaims;
  verifiedBy: AccessToken['verifiedBy'];
}

/**
 * The function that turns a presented token into its claims: a JWT verified with the issuer's
 * keys, anything else (or everything, with `introspection.jwts`) introspected. The issuer's
 * metadata is read only when a jwks_uri or an introspection endpoint was not given, at the
 * first token that needs it.
 */
export function tokenClaimsChecker(
  options: ResourceServerOptions,
  now: () => number,
): (token: string) => Promise<VerifiedClaims> {
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const limits = { ...DEFAULT_KEY_SET_LIMITS, ...options.limits };
  const clockToleranceSeconds = seconds(options.clockToleranceSeconds, 30, 'clockToleranceSeconds');
  const issuerMetadata = issuerMetadataLoader(options.issuer, limits, fetchImpl, now);
  const discovered = async (member: 'jwks_uri' | 'introspection_endpoint') => {
    const value = (await issuerMetadata())[member];
    if (value === undefined) throw new UpstreamError(`the issuer's metadata has no ${member}`);
    return value;
  };

  const jwtRules = {
    issuer: options.issuer,
    audience: options.resource,
    algorithms: tokenAlgorithms(options),
    keys: issuerKeys(options, (uri) => remoteKeySet(uri, limits, fetchImpl, now), discovered),
    clockToleranceSeconds,
    allowGenericJwt: options.allowGenericJwt ?? false,
    now,
  };
  const introspection = options.introspection;
  const introspect =
    introspection &&
    introspector(
      {
        endpoint: introspection.endpoint
          ? () => Promise.resolve(introspection.endpoint as string)
          : () => discovered('introspection_endpoint'),
        clientId: introspection.clientId,
        clientSecret: introspection.clientSecret,
        authMethod: introspection.authMethod ?? 'client_secret_basic',
        issuer: options.issuer,
        audience: options.resource,
        clockToleranceSeconds,
        limits: { ...DEFAULT_FETCH_LIMITS, ...options.limits },
        fetch: fetchImpl,
        now,
      },
      introspection.cache,
    );

  return async (token) => {
    if (introspect && (introspection?.jwts || !isJwtShaped(token))) {
      return { claims: await introspect(token), verifiedBy: 'introspection' };
    }
    if (!isJwtShaped(token)) {
      throw new TokenError('invalid_token', 'the token is not a JWT access token');
    }
    return { claims: await verifyJwtAccessToken(token, jwtRules), verifiedBy: 'jwt' };
  };
}

/**
 * The key lookup for tokens: the HMAC secret for HS* algorithms when one is configured, else the
 * issuer's remote key set, made once its jwks_uri is known.
 */
function issuerKeys(
  options: ResourceServerOptions,
  remote: (jwksUri: string) => JWTVerifyGetKey,
  discovered: (member: 'jwks_uri') => Promise<string>,
): JWTVerifyGetKey {
  let keySet: Promise<JWTVerifyGetKey> | undefined = options.jwksUri
    ? Promise.resolve(remote(options.jwksUri))
    : undefined;
  const secret = options.hmacSecret;
  return async (header, token) => {
    if (secret && header.alg?.startsWith('HS')) return secret;
    keySet ??= discovered('jwks_uri')
      .then(remote)
      .catch((error) => {
        keySet = undefined;
        throw error;
      });
    return (await keySet)(header, token);
  };
}
