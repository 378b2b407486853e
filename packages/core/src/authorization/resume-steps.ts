import { type ConsentRecord, giveConsent } from '../consent/consents.js';
import { nowSeconds, type RealmContext } from '../context.js';
import { emitEvent } from '../events/emit.js';
import type { LoginResult } from '../interactions/interaction.js';
import { extendSessionFamilies } from '../lifecycle/session-family.js';
import { logOutSession } from '../logout/log-out.js';
import { type LoadedSession, type Login, startSession } from '../sessions/session.js';
import type { ResumeState } from './checks/resume-state.js';
import { consentScopes } from './request.js';

/** The browser's session after a finished interaction, and whether it signed in just now. */
export interface AfterLogin {
  session: LoadedSession | undefined;
  loggedInNow: boolean;
  cookies: string[];
}

/**
 * A login result starts a session (continuing the browser's when it is the same user); another
 * user signing in on this browser signs the previous one out everywhere.
 */
export async function applyLogin(
  context: RealmContext,
  interaction: ResumeState['interaction'],
  previous: LoadedSession | undefined,
): Promise<AfterLogin> {
  const { result } = interaction;
  const loggedInBefore = interaction.loggedIn ?? false;
  if (!('login' in result)) return { session: previous, loggedInNow: loggedInBefore, cookies: [] };
  const login = loginOf(result.login, nowSeconds(context));
  const continued = previous?.record.sub === login.sub ? previous : undefined;
  if (previous && !continued) await logOutSession(context, previous.id, 'replaced');
  const started = await startSession(context, login, continued);
  await extendSessionFamilies(context, started.session.record);
  emitEvent(context, {
    type: 'sign_in',
    sub: login.sub,
    sid: started.session.record.sid,
    clientId: interaction.request.clientId,
    ...(login.acr === undefined ? {} : { acr: login.acr }),
    ...(login.amr === undefined ? {} : { amr: [...login.amr] }),
  });
  return { session: started.session, loggedInNow: true, cookies: started.cookies };
}

/**
 * A consent result is remembered for the signed-in user, narrowed to the scopes the request
 * asked for.
 */
export async function applyConsent(
  context: RealmContext,
  interaction: ResumeState['interaction'],
  session: LoadedSession,
): Promise<{ scopes: string[]; record: ConsentRecord } | undefined> {
  const { result, request } = interaction;
  if (!('consent' in result) || !result.consent) return undefined;
  const asked = consentScopes(request);
  const scopes = result.consent.scopes.filter((scope) => asked.includes(scope));
  const { sub } = session.record;
  const record = await giveConsent(context, sub, request.clientId, scopes, { renew: true });
  emitEvent(context, { type: 'consent', sub, clientId: request.clientId, scopes });
  return { scopes, record };
}

function loginOf(result: LoginResult, now: number): Login {
  const login: Login = { sub: result.sub, authTime: result.authTime ?? now };
  if (result.acr !== undefined) login.acr = result.acr;
  if (result.amr !== undefined) login.amr = [...result.amr];
  return login;
}
