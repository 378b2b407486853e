import type { RealmContext } from '../context.js';
import { nowSeconds } from '../context.js';
import { redirect } from '../http/redirect.js';
import type { GatehouseResponse } from '../http/types.js';
import { ensureBrowserId } from '../interactions/browser-binding.js';
import type { InteractionPrompt } from '../interactions/interaction.js';
import { detailsOf, startInteraction } from '../interactions/interactions.js';
import type { SessionRecord } from '../sessions/session.js';
import { redirected } from './authorization-error.js';
import { grantedScopes } from './consent.js';
import { issueAuthorizationResponse } from './issue-response.js';
import { redirectToClient, targetOf } from './redirect.js';
import type { AuthorizationRequest } from './request.js';
import { includesIdToken } from './response-type.js';

/** Where an authorization stands between the request, the interactions and the response. */
export interface AuthorizationProgress {
  /** The browser's signed-in session, if any. */
  session: SessionRecord | undefined;
  /** A login interaction of this very authorization has completed (prompt=login, max_age met). */
  loggedInNow: boolean;
  /** Scopes the user consented to in this authorization, when a consent interaction ran. */
  consentedScopes?: readonly string[];
  /** Cookies to set with whatever response comes next. */
  cookies: string[];
  /** The HTTP method of the browser's request (303 after a POST). */
  method: string;
  /** The browser's Cookie header: interactions are bound to its browser id. */
  cookieHeader: string | undefined;
}

/**
 * Decides what a validated request still needs — a login, a consent — and either hands the user
 * to the host application (an interaction) or answers the client. `prompt=none` turns every
 * needed interaction into an error instead (OIDC Core §3.1.2.6).
 */
export async function continueAuthorization(
  context: RealmContext,
  request: AuthorizationRequest,
  progress: AuthorizationProgress,
): Promise<GatehouseResponse> {
  const session = await liveSession(context, progress.session);
  if (!session || needsLogin(context, request, session, progress.loggedInNow)) {
    if (request.prompt.includes('none') || progress.loggedInNow) {
      // After a login in this very authorization, a stale auth_time means the host did not
      // authenticate the user as max_age asked; sending them round again would loop.
      throw redirected('login_required', 'the user is not signed in or must sign in again');
    }
    return interaction(context, 'login', request, progress);
  }
  const scopes = await authorizedScopes(context, request, session, progress);
  if (scopes === undefined) {
    if (request.prompt.includes('none')) {
      throw redirected('consent_required', 'the user has not consented to the requested scopes');
    }
    return interaction(context, 'consent', request, progress);
  }
  const params = await issueAuthorizationResponse(context, request, session, scopes);
  return redirectToClient(
    targetOf(request),
    params,
    context.realm.issuer,
    progress.method,
    progress.cookies,
  );
}

/** A session counts only while its account exists: a deleted user's SSO authorizes nothing. */
async function liveSession(
  context: RealmContext,
  session: SessionRecord | undefined,
): Promise<SessionRecord | undefined> {
  if (!session) return undefined;
  const account = await context.accounts.findAccount(context.realm.name, session.sub);
  return account ? session : undefined;
}

/** OIDC Core §3.1.2.1: prompt=login, and max_age (0 meaning "sign in now", like prompt=login). */
function needsLogin(
  context: RealmContext,
  request: AuthorizationRequest,
  session: SessionRecord,
  loggedInNow: boolean,
): boolean {
  const { maxAge } = request;
  const tooOld = maxAge !== undefined && nowSeconds(context) - session.authTime > maxAge;
  if (loggedInNow) return tooOld;
  return request.prompt.includes('login') || maxAge === 0 || tooOld;
}

/**
 * The scopes to grant, or undefined when the user must be asked. Consent given in this
 * authorization may narrow the request; remembered consent must cover all of it.
 */
async function authorizedScopes(
  context: RealmContext,
  request: AuthorizationRequest,
  session: SessionRecord,
  progress: AuthorizationProgress,
): Promise<string[] | undefined> {
  let scopes = request.scopes;
  if (progress.consentedScopes !== undefined) {
    const consented = new Set(progress.consentedScopes);
    scopes = request.scopes.filter((scope) => consented.has(scope));
  } else if (!context.realm.clients.get(request.clientId)?.config.skip_consent) {
    if (request.prompt.includes('consent')) return undefined;
    const granted = await grantedScopes(context, session.sub, request.clientId);
    if (!request.scopes.every((scope) => granted.has(scope))) return undefined;
  }
  if (scopes.length === 0) throw redirected('access_denied', 'the user granted none of the scopes');
  if (includesIdToken(request.responseType) && !scopes.includes('openid')) {
    throw redirected('access_denied', 'the user did not grant the openid scope');
  }
  return scopes;
}

async function interaction(
  context: RealmContext,
  prompt: InteractionPrompt,
  request: AuthorizationRequest,
  progress: AuthorizationProgress,
): Promise<GatehouseResponse> {
  const browser = ensureBrowserId(progress.cookieHeader, context.realm);
  const record = await startInteraction(
    context,
    {
      prompt,
      request,
      ...(prompt === 'consent' && progress.session ? { sub: progress.session.sub } : {}),
      ...(progress.loggedInNow ? { loggedIn: true } : {}),
    },
    browser.id,
  );
  const cookies = browser.cookie ? [...progress.cookies, browser.cookie] : progress.cookies;
  return redirect(context.interactionUrl(detailsOf(context, record)), progress.method, cookies);
}
