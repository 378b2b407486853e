import { answerAuthorization } from '../authorization/answer.js';
import { redirected, shownAtProvider } from '../authorization/authorization-error.js';
import { rememberConsent } from '../authorization/consent.js';
import { continueAuthorization } from '../authorization/continue-authorization.js';
import { targetOf } from '../authorization/redirect.js';
import { type EndpointHandler, nowSeconds } from '../context.js';
import { parseUrlEncoded } from '../http/form.js';
import type { InteractionRecord, LoginResult } from '../interactions/interaction.js';
import { takeFinishedInteraction } from '../interactions/interactions.js';
import { type Login, loadSession, type SessionRecord, startSession } from '../sessions/session.js';

/**
 * Where the browser comes back after the host finished an interaction: applies the result — a
 * new session for a login, remembered consent — and continues the authorization it belongs to.
 * Only the browser that started the interaction may resume it, and only once.
 */
export const authorizationResumeEndpoint: EndpointHandler = async (request, context) =>
  answerAuthorization(context, undefined, { method: request.method }, async () => {
    const id = parseUrlEncoded(request.query).get('interaction');
    const interaction =
      id === undefined ? undefined : await takeFinishedInteraction(request, context, id);
    if (!interaction?.result) {
      throw shownAtProvider(
        'invalid_request',
        'this sign-in has expired or was already completed; start again from the application',
      );
    }
    const cookies: string[] = [];
    const authorization = interaction.request;
    // The configuration may have changed while the user was signing in.
    const client = context.realm.clients.get(authorization.clientId);
    if (!client?.config.redirect_uris.includes(authorization.redirectUri)) {
      throw shownAtProvider(
        'invalid_request',
        'the application of this sign-in is no longer registered for it; start again',
      );
    }
    return answerAuthorization(
      context,
      targetOf(authorization),
      { method: request.method, cookies },
      async () => {
        const result = interaction.result;
        if (!result || 'error' in result) {
          throw redirected(
            result?.error ?? 'access_denied',
            result?.error_description ?? 'the user denied the request',
          );
        }
        const previous = await loadSession(request, context);
        let session = previous?.record;
        let loggedInNow = interaction.loggedIn ?? false;
        if ('login' in result) {
          const started = await startSession(
            context,
            loginOf(result.login, nowSeconds(context)),
            previous,
          );
          cookies.push(...started.cookies);
          session = started.record;
          loggedInNow = true;
        }
        const sessionRecord = session && sameUser(session, interaction) ? session : undefined;
        let consentedScopes: string[] | undefined;
        if (result.consent && sessionRecord) {
          consentedScopes = result.consent.scopes.filter((scope) =>
            authorization.scopes.includes(scope),
          );
          await rememberConsent(
            context,
            sessionRecord.sub,
            authorization.clientId,
            consentedScopes,
          );
        }
        return continueAuthorization(context, authorization, {
          session: sessionRecord,
          loggedInNow: loggedInNow && sessionRecord !== undefined,
          ...(consentedScopes === undefined ? {} : { consentedScopes }),
          cookies,
          method: request.method,
          cookieHeader: request.headers.cookie,
        });
      },
    );
  });

/** A consent asked of one user must not be applied to another who signed in meanwhile. */
function sameUser(session: SessionRecord, interaction: InteractionRecord): boolean {
  return interaction.sub === undefined || interaction.sub === session.sub;
}

function loginOf(result: LoginResult, now: number): Login {
  const login: Login = { sub: result.sub, authTime: result.authTime ?? now };
  if (result.acr !== undefined) login.acr = result.acr;
  if (result.amr !== undefined) login.amr = [...result.amr];
  return login;
}
