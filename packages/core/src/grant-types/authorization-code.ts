import { checkBoundKey } from '../dpop/key-binding.js';
import { OAuthError } from '../errors/oauth-error.js';
import { revokeReplayedFamily } from '../lifecycle/replay.js';
import { authorizationCodeId, redeemAuthorizationCode } from '../tokens/authorization-code.js';
import type { GrantTypeHandler } from './grant-type.js';
import { challengesAnswered, checkCodeVerifier } from './pkce.js';
import { userTokenResource, userTokenResponse } from './user-token-response.js';

/**
 * RFC 6749 §4.1.3 and docs/interface.md §4.2: a one-time code for the user's tokens. The code must
 * belong to the client, come back with the redirect_uri it was sent to, and pass PKCE (RFC 7636,
 * RFC 9700), all checked before the request counts as a use: another client, or anyone without
 * the verifier, holding a leaked code can neither spend it nor trigger the replay revocation. A
 * request that passes them spends the code, whatever then goes wrong; a second one is a replay
 * and revokes every token issued from the code (RFC 6749 §4.1.2).
 */
export const authorizationCodeGrant: GrantTypeHandler = async (
  params,
  client,
  context,
  dpopJkt,
) => {
  const code = params.get('code');
  if (code === undefined) throw new OAuthError('invalid_request', 'code is required');
  const presentedRedirectUri = params.get('redirect_uri');
  if (presentedRedirectUri === undefined)
    throw new OAuthError('invalid_request', 'redirect_uri is required');

  const codeVerifier = params.get('code_verifier');
  // One store call checks what the request presents and spends the code if all of it holds;
  // otherwise the code is left unspent and the checks below say what did not hold.
  const consumed = await redeemAuthorizationCode(context, authorizationCodeId(context, code), {
    clientId: client.id,
    redirectUri: presentedRedirectUri,
    codeChallenges: challengesAnswered(codeVerifier),
    dpopJkt,
  });
  const consumedAtMs = context.now();
  // One description for unknown and foreign codes: the answer does not confirm a code exists.
  const unusable = () =>
    new OAuthError('invalid_grant', 'the code is invalid, expired or issued to another client');
  const issued = consumed?.value;
  if (issued?.clientId !== client.id) throw unusable();
  if (presentedRedirectUri !== issued.redirectUri) {
    throw new OAuthError(
      'invalid_grant',
      'redirect_uri differs from the one of the authorization request',
    );
  }
  checkCodeVerifier(issued.codeChallenge, codeVerifier);
  checkBoundKey(issued.dpopJkt, dpopJkt, 'code');
  if (!consumed?.matched) throw unusable();
  const { redirectUri, codeChallenge, nonce, dpopJkt: _codeKey, exp, ...grant } = consumed.value;
  if (!consumed.firstUse) {
    await revokeReplayedFamily(context, grant, 'authorization_code');
    throw new OAuthError(
      'invalid_grant',
      'the code was already used; the tokens issued from it are revoked',
    );
  }
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
    ...(dpopJkt === undefined ? {} : { dpopJkt }),
  });
};
