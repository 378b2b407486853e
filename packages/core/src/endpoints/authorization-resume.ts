import { answerAuthorization } from '../authorization/answer.js';
import { shownAtProvider } from '../authorization/authorization-error.js';
import { runChecks } from '../authorization/checks/check.js';
import { AUTHORIZATION_CHECKS } from '../authorization/checks/index.js';
import type { ResumeState } from '../authorization/checks/resume-state.js';
import { continueAuthorization } from '../authorization/continue-authorization.js';
import { deniedOnError } from '../authorization/device-approval.js';
import { targetOf } from '../authorization/redirect.js';
import { applyConsent, applyLogin } from '../authorization/resume-steps.js';
import type { EndpointHandler, RealmContext } from '../context.js';
import { parseUrlEncoded } from '../http/form.js';
import type { GatehouseRequest } from '../http/types.js';
import type { InteractionRecord } from '../interactions/interaction.js';
import { takeFinishedInteraction } from '../interactions/interactions.js';
import { loadSession, type SessionRecord } from '../sessions/session.js';

/**
 * Where the browser comes back after the host finished an interaction: the resume row of the
 * checks table, then the result applied — a new session for a login, remembered consent — and
 * the authorization it belongs to continued (a device's request that ends in an error is
 * denied). Only the browser that started the interaction may resume it, and only once.
 */
export const authorizationResumeEndpoint: EndpointHandler = async (request, context) =>
  answerAuthorization(context, undefined, { method: request.method }, async () => {
    const interaction = await finishedInteraction(request, context);
    const authorization = interaction.request;
    const cookies: string[] = [];
    return answerAuthorization(
      context,
      targetOf(authorization),
      { method: request.method, cookies },
      () =>
        deniedOnError(context, authorization.device, async () => {
          await runChecks(AUTHORIZATION_CHECKS.resume, { context, interaction });
          const previous = await loadSession(request, context);
          const login = await applyLogin(context, interaction, previous);
          cookies.push(...login.cookies);
          const session = login.session;
          const ofUser = session && sameUser(session.record, interaction) ? session : undefined;
          const consent = ofUser ? await applyConsent(context, interaction, ofUser) : undefined;
          return continueAuthorization(context, authorization, {
            session: ofUser,
            loggedInNow: login.loggedInNow && ofUser !== undefined,
            ...(consent === undefined ? {} : { consent }),
            cookies,
            method: request.method,
            cookieHeader: request.headers.cookie,
          });
        }),
    );
  });

/** The finished interaction this browser may resume, taken so that it resumes only once. */
async function finishedInteraction(
  request: GatehouseRequest,
  context: RealmContext,
): Promise<ResumeState['interaction']> {
  const id = parseUrlEncoded(request.query).get('interaction');
  const interaction =
    id === undefined ? undefined : await takeFinishedInteraction(request, context, id);
  if (!interaction?.result) {
    throw shownAtProvider(
      'invalid_request',
      'this sign-in has expired or was already completed; start again from the application',
    );
  }
  return interaction as ResumeState['interaction'];
}

/** A consent asked of one user must not be applied to another who signed in meanwhile. */
function sameUser(session: SessionRecord, interaction: InteractionRecord): boolean {
  return interaction.sub === undefined || interaction.sub === session.sub;
}
