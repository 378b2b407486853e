import type { RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { ENDPOINT_PATHS } from '../endpoints/paths.js';
import { readCookies, serializeCookie } from '../http/cookies.js';
import type { GatehouseRequest } from '../http/types.js';
import { realmCookieOptions } from '../sessions/session.js';
import {
  INTERACTION_NAMESPACE,
  type InteractionDetails,
  type InteractionRecord,
  type InteractionResult,
} from './interaction.js';

/** How long a user has to sign in or consent before the authorization request must start over. */
export const INTERACTION_TTL_SECONDS = 900;
const BINDING_COOKIE_PREFIX = 'gh_interaction_';

export class InteractionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InteractionError';
  }
}

/**
 * Stores a new interaction and returns it with the cookie that binds it to this browser: only
 * the browser that started an authorization can resume it, whoever finishes the interaction.
 */
export async function startInteraction(
  context: RealmContext,
  fields: Omit<InteractionRecord, 'id' | 'realm' | 'browserBinding'>,
): Promise<{ record: InteractionRecord; cookie: string }> {
  const id = randomId(16);
  const binding = randomId(32);
  const record: InteractionRecord = {
    ...fields,
    id,
    realm: context.realm.name,
    browserBinding: tokenDigest(binding),
  };
  await context.store.set(INTERACTION_NAMESPACE, recordId(context.realm.name, id), record, {
    ttlSeconds: INTERACTION_TTL_SECONDS,
  });
  const cookie = serializeCookie(
    `${BINDING_COOKIE_PREFIX}${id}`,
    binding,
    realmCookieOptions(context.realm, INTERACTION_TTL_SECONDS, {
      path: new URL(context.realm.url(ENDPOINT_PATHS.authorizationResume)).pathname,
    }),
  );
  return { record, cookie };
}

/** What the host's page shows; undefined for an unknown, expired or already finished interaction. */
export async function interactionDetails(
  context: RealmContext,
  id: string,
): Promise<InteractionDetails | undefined> {
  const record = await context.store.get<InteractionRecord>(
    INTERACTION_NAMESPACE,
    recordId(context.realm.name, id),
  );
  return record && !record.result ? detailsOf(context, record) : undefined;
}

export function detailsOf(context: RealmContext, record: InteractionRecord): InteractionDetails {
  const { request } = record;
  const client = context.realm.clients.get(request.clientId);
  const details: InteractionDetails = {
    id: record.id,
    realm: record.realm,
    prompt: record.prompt,
    client: {
      id: request.clientId,
      ...(client?.config.client_name ? { name: client.config.client_name } : {}),
    },
    scopes: [...request.scopes],
    requestedPrompt: [...request.prompt],
  };
  if (request.resource !== undefined) details.resource = request.resource;
  if (request.maxAge !== undefined) details.maxAge = request.maxAge;
  if (request.acrValues) details.acrValues = [...request.acrValues];
  if (request.uiLocales) details.uiLocales = [...request.uiLocales];
  if (request.loginHint !== undefined) details.loginHint = request.loginHint;
  if (record.sub !== undefined) details.sub = record.sub;
  return details;
}

/**
 * Records the host's result and returns the URL the browser must be sent to (with a 303) so the
 * authorization continues. A login interaction needs a login result, a consent interaction a
 * consent result; either may end in an error instead.
 */
export async function finishInteraction(
  context: RealmContext,
  id: string,
  result: InteractionResult,
): Promise<string> {
  const key = recordId(context.realm.name, id);
  const record = await context.store.get<InteractionRecord>(INTERACTION_NAMESPACE, key);
  if (!record || record.result)
    throw new InteractionError('unknown, expired or finished interaction');
  if (!('error' in result)) {
    if (record.prompt === 'login' && !('login' in result))
      throw new InteractionError('a login interaction needs a login result');
    if (record.prompt === 'consent' && !('consent' in result))
      throw new InteractionError('a consent interaction needs a consent result');
    if ('login' in result && record.sub !== undefined && result.login.sub !== record.sub)
      throw new InteractionError('the login result names another user than the session');
  }
  await context.store.set(
    INTERACTION_NAMESPACE,
    key,
    { ...record, result },
    {
      ttlSeconds: INTERACTION_TTL_SECONDS,
    },
  );
  return resumeUrl(context, id);
}

/**
 * Takes the finished interaction for the resume endpoint: once only, and only in the browser
 * that started it. Undefined for anything else.
 */
export async function takeFinishedInteraction(
  request: GatehouseRequest,
  context: RealmContext,
  id: string,
): Promise<InteractionRecord | undefined> {
  const binding = readCookies(request.headers.cookie).get(`${BINDING_COOKIE_PREFIX}${id}`);
  if (binding === undefined) return undefined;
  const key = recordId(context.realm.name, id);
  const record = await context.store.get<InteractionRecord>(INTERACTION_NAMESPACE, key);
  if (!record?.result || record.browserBinding !== tokenDigest(binding)) return undefined;
  const consumed = await context.store.consume<InteractionRecord>(INTERACTION_NAMESPACE, key);
  return consumed?.firstUse && consumed.value.result ? consumed.value : undefined;
}

/** Clears the binding cookie once the interaction has been resumed. */
export function clearBindingCookie(context: RealmContext, id: string): string {
  return serializeCookie(
    `${BINDING_COOKIE_PREFIX}${id}`,
    '',
    realmCookieOptions(context.realm, 0, {
      path: new URL(context.realm.url(ENDPOINT_PATHS.authorizationResume)).pathname,
    }),
  );
}

export const resumeUrl = (context: RealmContext, id: string) =>
  `${context.realm.url(ENDPOINT_PATHS.authorizationResume)}?interaction=${encodeURIComponent(id)}`;

const recordId = (realmName: string, id: string) => `${realmName}/${id}`;
