import type { GatehouseRequest } from '@gatehouse-oidc/core';
import type { TokenFamily } from '../../packages/core/src/lifecycle/token-family.js';
import { loadSession, startSession } from '../../packages/core/src/sessions/session.js';
import { issueAccessToken } from '../../packages/core/src/tokens/access-token.js';
import { issueIdToken } from '../../packages/core/src/tokens/id-token.js';
import type { Harness } from './harness.js';
import { userGrants } from './user-grants.js';

/**
 * Signed-in browsers and the tokens of a user's grant, minted straight into a harness's store as
 * the authorization and token endpoints would, so userinfo, introspection and logout can be
 * tested on their own. Grants default to alice's `openid profile` grant to web-app.
 */
export async function userSessions(h: Harness, realmName = 'test') {
  const grants = await userGrants(h, realmName);
  const { context, grant } = grants;

  async function accessToken(overrides: Partial<TokenFamily> = {}): Promise<string> {
    const { sub, clientId, scopes, grantId, resource } = grant(overrides);
    const issued = await issueAccessToken(context, {
      sub,
      clientId,
      scopes,
      grantId,
      ...(resource === undefined ? {} : { resource }),
    });
    return issued.token;
  }

  const idToken = (overrides: Partial<TokenFamily> = {}) =>
    issueIdToken(context, { grant: grant(overrides) });

  /** Signs `sub` in: the session record and the `Cookie` header the browser sends from then on. */
  async function signIn(sub = 'alice') {
    const { session, cookies } = await startSession(
      context,
      { sub, authTime: h.nowSeconds() },
      undefined,
    );
    return { record: session.record, cookie: cookieHeader(cookies) };
  }

  /** The live session the `Cookie` header names, or undefined. */
  const sessionOf = (cookie: string) => {
    const request: GatehouseRequest = { method: 'GET', path: '/', query: '', headers: { cookie } };
    return loadSession(request, context);
  };

  return { ...grants, accessToken, idToken, signIn, sessionOf };
}

/** The `Cookie` header a browser sends back for these `Set-Cookie` values. */
export function cookieHeader(setCookies: readonly string[]): string {
  return setCookies.map((cookie) => cookie.slice(0, cookie.indexOf(';'))).join('; ');
}
