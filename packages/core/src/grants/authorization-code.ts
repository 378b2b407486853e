import { OAuthError } from '../errors/oauth-error.js';
import { consumeAuthorizationCode } from '../tokens/authorization-code.js';
import type { GrantHandler } from './grant.js';
import { checkCodeVerifier } from './pkce.js';
import { revokeReplayedGrant } from './replay.js';
import { userTokenResource, userTokenResponse } from './user-token-response.js';

/**
 * RFC 6749 §4.1.3 and docs/interface.md §4.2: a one-time code for the user's tokens. The code is
 * spent by the first request that presents it, whatever then goes wrong; a second presentation is a
 * replay and revokes every token issued from the code (RFC 6749 §4.1.2). The code must belong to
 * the client, come back with the redirect_uri it was sent to, and pass PKCE (RFC 7636, RFC 9700).
 */
export const authorizationCodeGrant: GrantHandler = async (params, client, context) => {
  const code = params.get('code');
  if (code === undefined) throw new OAuthError('invalid_request', 'code is required');
  const redirectUri = params.get('redirect_uri');
  if (redirectUri === undefined)
    throw new OAuthError('invalid_request', 'redirect_uri is required');

  const consumed = await consumeAuthorizationCode(context, code);
  const consumedAtMs = context.now();
  // One description for unknown and foreign codes: the answer does not confirm a code exists.
  const unusable = () =>
    new OAuthError('invalid_grant', 'the code is invalid, expired or issued to another client');
  if (!consumed) throw unusable();
  const { redirectUri: expectedRedirectUri, codeChallenge, nonce, exp, ...grant } = consumed.value;
  if (!consumed.firstUse) {
    await revokeReplayedGrant(context, grant, 'authorization_code');
    throw new OAuthError(
      'invalid_grant',
      'the code was already used; the tokens issued from it are revoked',
    );
  }
  if (grant.clientId !== client.id) throw unusable();
  if (redirectUri !== expectedRedirectUri) {
    throw new OAuthError(
      'invalid_grant',
      'redirect_uri differs from the one of the authorization request',
    );
  }
  checkCodeVerifier(codeChallenge, params.get('code_verifier'));
  const resource = userTokenResource(params.get('resource'), grant, context.realm, grant.scopes);
  const account = await context.accounts.findAccount(context.realm.name, grant.sub);
  if (!account) throw new OAuthError('invalid_grant', 'the account of this grant no longer exists');

  return userTokenResponse(context, client, {
    grantType: 'authorization_code',
    grant,
    account,
    scopes: grant.scopes,
    resource,
    ...(nonce === undefined ? {} : { nonce }),
    consumedAtMs,
  });
};
