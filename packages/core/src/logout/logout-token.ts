import { nowSeconds, type RealmContext } from '../context.js';
import { randomId } from '../crypto/random.js';
import { signRealmJwt } from '../jwt/sign.js';
import { type Client, LOGOUT_TOKEN_TTL_SECONDS } from '../realms/realm.js';

/** The media type of a logout token (Back-Channel Logout 1.0 §2.4), as its `typ` header. */
export const LOGOUT_TOKEN_TYPE = 'logout+jwt';
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** Who was logged out: a session of the user (`sid`), or the user at the client (`sub` alone). */
export interface LoggedOut {
  sub: string;
  sid?: string;
}

/**
 * A logout token (OpenID Connect Back-Channel Logout 1.0 §2.4) for one client: signed like the
 * client's ID tokens, so it verifies with the keys and algorithm the client already trusts. It
 * never carries a nonce, which is what tells it apart from an ID token.
 */
export function issueLogoutToken(
  context: RealmContext,
  client: Client,
  loggedOut: LoggedOut,
): Promise<string> {
  const iat = nowSeconds(context);
  const payload: Record<string, unknown> = {
    iss: context.realm.issuer,
    sub: loggedOut.sub,
    aud: client.id,
    iat,
    exp: iat + LOGOUT_TOKEN_TTL_SECONDS,
    jti: randomId(16),
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
  };
  if (loggedOut.sid !== undefined) payload.sid = loggedOut.sid;
  return signRealmJwt(context, LOGOUT_TOKEN_TYPE, payload, client.idTokenAlg);
}
