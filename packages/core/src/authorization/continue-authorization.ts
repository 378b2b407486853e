import { type ConsentRecord, giveConsent, readConsent } from '../consent/consents.js';
import type { RealmContext } from '../context.js';
import { nowSeconds } from '../context.js';
import { redirect } from '../http/redirect.js';
import type { GatehouseResponse } from '../http/types.js';
import { ensureBrowserId } from '../interactions/browser-binding.js';
import type { InteractionPrompt } from '../interactions/interaction.js';
import { detailsOf, startInteraction } from '../interactions/interactions.js';
import type { Client } from '../realms/realm.js';
import type { LoadedSession } from '../sessions/session.js';
import type { Revised } from '../store/store.js';
import { redirected } from './authorization-error.js';
import { approveDevice } from './device-approval.js';
import { type Consented, issueAuthorizationResponse } from './issue-response.js';
import { respondToClient, targetOf } from './redirect.js';
import { type AuthorizationRequest, consentScopes } from './request.js';
import { includesIdToken } from './response-type.js';

/** Where an authorization stands between the request, the interactions and the response. */
export interface AuthorizationProgress {
  /** The browser's signed-in session, if any. */
  session: LoadedSession | undefined;
  /** A login interaction of this very authorization has completed (prompt=login, max_age met). */
  loggedInNow: boolean;
  /** The consent the user gave in this authorization, when a consent interaction ran. */
  consent?: { scopes: readonly string[]; record: ConsentRecord };
  /** Cookies to set with whatever response comes next. */
  cookies: string[];
  /** The HTTP method of the browser's request (303 after a POST). */
  method: string;
  /** The browser's Cookie header: interactions are bound to its browser id. */
  cookieHeader: string | undefined;
  /** The request's client, when this request found it already: not looked up again. */
  client?: Client;
}

/**
 * Decides what a validated request still needs — a login, a consent — and either hands the user
 * to the host application (an interaction) or answers the client. `prompt=none` turns every
 * needed interaction into an error instead (OIDC Core 1.0 §3.1.2.6).
 */
export async function continueAuthorization(
  context: RealmContext,
  request: AuthorizationRequest,
  progress: AuthorizationProgress,
): Promise<GatehouseResponse> {
  const session = await liveSession(context, progress.session);
  if (!session || needsLogin(context, request, session, progress.loggedInNow)) {
    if (request.prompt.includes('none') || progress.loggedInNow) {
      // After a login in this very authorization, a stale auth_time, another user than the
      // expected one or an unmet acr means the host did not authenticate the user as asked;
      // sending them round again would loop.
      throw redirected('login_required', 'the user is not signed in or must sign in again');
    }
    return interaction(context, 'login', request, progress);
  }
  const authorized = await authorizedScopes(context, request, session, progress);
  if (authorized === undefined) {
    if (request.prompt.includes('none')) {
      throw redirected('consent_required', 'the user has not consented to the requested scopes');
    }
    return interaction(context, 'consent', request, progress);
  }
  const { known, ...consented } = authorized;
  if (request.device) {
    // The consent just given is remembered by the resume step; a device's request never skips it.
    return approveDevice(context, request, request.device, session, consented.scopes, progress);
  }
  const consent =
    progress.consent?.record ??
    (await giveConsent(
      context,
      session.record.sub,
      request.clientId,
      [...consented.scopes, ...consented.claimScopes],
      known ? { known } : {},
    ));
  const params = await issueAuthorizationResponse(context, request, session, consented, consent);
  return respondToClient(
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
  session: LoadedSession | undefined,
): Promise<LoadedSession | undefined> {
  if (!session) return undefined;
  const account = await context.accounts.findAccount(context.realm.name, session.record.sub);
  return account ? session : undefined;
}

/**
 * OIDC Core 1.0 §3.1.2.1: prompt=login, max_age (0 meaning "sign in now", like prompt=login);
 * §3.1.2.2: a session of another user than the expected one (id_token_hint, a requested `sub`);
 * §5.5.1.1: an essential `acr` the session's authentication does not meet.
 */
function needsLogin(
  context: RealmContext,
  request: AuthorizationRequest,
  session: LoadedSession,
  loggedInNow: boolean,
): boolean {
  const { maxAge, expectedSub, requiredAcr } = request;
  const unmet =
    (maxAge !== undefined && nowSeconds(context) - session.record.authTime > maxAge) ||
    (expectedSub !== undefined && session.record.sub !== expectedSub) ||
    (requiredAcr !== undefined && !requiredAcr.includes(session.record.acr ?? ''));
  if (loggedInNow) return unmet;
  return unmet || request.prompt.includes('login') || maxAge === 0;
}

/**
 * What the user agreed to, or undefined when they must be asked: the scopes to grant, and those
 * of `claimScopes` whose claims may be released, with the remembered consent read to decide it.
 * Consent given in this authorization may narrow the request; remembered consent must cover all
 * of it.
 */
async function authorizedScopes(
  context: RealmContext,
  request: AuthorizationRequest,
  session: LoadedSession,
  progress: AuthorizationProgress,
): Promise<(Consented & { known?: Revised<ConsentRecord> }) | undefined> {
  let scopes = request.scopes;
  let claimScopes = request.claimScopes ?? [];
  let known: Revised<ConsentRecord> | undefined;
  if (progress.consent !== undefined) {
    const consented = new Set(progress.consent.scopes);
    scopes = scopes.filter((scope) => consented.has(scope));
    claimScopes = claimScopes.filter((scope) => consented.has(scope));
  } else if (
    request.device !== undefined ||
    !context.realm.clients.get(request.clientId)?.config.skip_consent
  ) {
    // RFC 8628 §5.4: whoever typed a code someone sent them must see what it gives away.
    if (request.prompt.includes('consent')) return undefined;
    known = await readConsent(context, session.record.sub, request.clientId);
    const granted = new Set(known?.value.scopes);
    if (!consentScopes(request).every((scope) => granted.has(scope))) return undefined;
  }
  if (scopes.length === 0) throw redirected('access_denied', 'the user granted none of the scopes');
  if (includesIdToken(request.responseType) && !scopes.includes('openid')) {
    throw redirected('access_denied', 'the user did not grant the openid scope');
  }
  return known ? { scopes, claimScopes, known } : { scopes, claimScopes };
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
      ...(prompt === 'consent' && progress.session ? { sub: progress.session.record.sub } : {}),
      ...(progress.loggedInNow ? { loggedIn: true } : {}),
    },
    browser.id,
  );
  const cookies = browser.cookie ? [...progress.cookies, browser.cookie] : progress.cookies;
  const details = await detailsOf(context, record, progress.client);
  return redirect(context.interactionUrl(details), progress.method, cookies);
}
