import { answerAuthorization } from '../authorization/answer.js';
import { redirected, shownAtProvider } from '../authorization/authorization-error.js';
import { continueAuthorization } from '../authorization/continue-authorization.js';
import { targetOf } from '../authorization/redirect.js';
import { isRegisteredRedirectUri } from '../authorization/redirect-uri-match.js';
import { consentScopes } from '../authorization/request.js';
import { findClient } from '../client-metadata/find-client.js';
import { type ConsentRecord, giveConsent } from '../consent/consents.js';
import { type EndpointHandler, nowSeconds } from '../context.js';
import { emitEvent } from '../events/emit.js';
import { parseUrlEncoded } from '../http/form.js';
import type { InteractionRecord, LoginResult } from '../interactions/interaction.js';
import { takeFinishedInteraction } from '../interactions/interactions.js';
import { extendSessionFamilies } from '../lifecycle/session-family.js';
import { logOutSession } from '../logout/log-out.js';
import {
  type LoadedSession,
  type Login,
  loadSession,
  type SessionRecord,
  startSession,
} from '../sessions/session.js';

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
    // The configuration, or the client's metadata document, may have changed while the user was
    // signing in.
    const client = await findClient(context, authorization.clientId);
    if (!client || !isRegisteredRedirectUri(client, authorization.redirectUri)) {
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
        let session: LoadedSession | undefined = previous;
        let loggedInNow = interaction.loggedIn ?? false;
        if ('login' in result) {
          const login = loginOf(result.login, nowSeconds(context));
          const continued = previous?.record.sub === login.sub ? previous : undefined;
          // Another user signing in on this browser signs the previous one out everywhere.
          if (previous && !continued) await logOutSession(context, previous.id, 'replaced');
          const started = await startSession(context, login, continued);
          await extendSessionFamilies(context, started.session.record);
          cookies.push(...started.cookies);
          session = started.session;
          loggedInNow = true;
          emitEvent(context, {
            type: 'sign_in',
            sub: login.sub,
            sid: session.record.sid,
            clientId: authorization.clientId,
            ...(login.acr === undefined ? {} : { acr: login.acr }),
            ...(login.amr === undefined ? {} : { amr: [...login.amr] }),
          });
        }
        const ofUser = session && sameUser(session.record, interaction) ? session : undefined;
        let consent: { scopes: string[]; record: ConsentRecord } | undefined;
        if (result.consent && ofUser) {
          const asked = consentScopes(authorization);
          const scopes = result.consent.scopes.filter((scope) => asked.includes(scope));
          const record = await giveConsent(
            context,
            ofUser.record.sub,
            authorization.clientId,
            scopes,
            { renew: true },
          );
          consent = { scopes, record };
          emitEvent(context, {
            type: 'consent',
            sub: ofUser.record.sub,
            clientId: authorization.clientId,
            scopes,
          });
        }
        return continueAuthorization(context, authorization, {
          session: ofUser,
          loggedInNow: loggedInNow && ofUser !== undefined,
          ...(consent === undefined ? {} : { consent }),
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
