import { consentScopes } from '../authorization/request.js';
import { findClient } from '../client-metadata/find-client.js';
import { isLoopbackHostname } from '../config/primitives.js';
import { nowSeconds, type RealmContext } from '../context.js';
import { tokenDigest } from '../crypto/digest.js';
import { randomId } from '../crypto/random.js';
import { formatUserCode } from '../device/user-code.js';
import { ENDPOINT_PATHS } from '../endpoints/paths.js';
import type { GatehouseRequest } from '../http/types.js';
import type { Client } from '../realms/realm.js';
import type { Revised } from '../store/store.js';
import { browserIdOf } from './browser-binding.js';
import {
  INTERACTION_NAMESPACE,
  type InteractionDetails,
  type InteractionRecord,
  type InteractionResult,
} from './interaction.js';

/**
 * How long an interaction waits for the host's page to show it: the browser is on its way there
 * already. Anyone can start interactions, so until the user is shown the page they cost little.
 */
const PENDING_TTL_SECONDS = 120;
/** How long a user whose page was shown has to sign in or consent. */
const SHOWN_TTL_SECONDS = 900;
/** Interactions one browser keeps at once in a realm (tabs, retries); the oldest goes first. */
export const INTERACTIONS_PER_BROWSER = 20;

export class InteractionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InteractionError';
  }
}

/** Stores a new interaction bound to the browser id that started it (see browser-binding.ts). */
export async function startInteraction(
  context: RealmContext,
  fields: Omit<InteractionRecord, 'id' | 'realm' | 'browserBinding'>,
  browserId: string,
): Promise<InteractionRecord> {
  const record: InteractionRecord = {
    ...fields,
    id: randomId(16),
    realm: context.realm.name,
    browserBinding: tokenDigest(browserId),
  };
  await keep(context, record);
  return record;
}

/**
 * Writes an interaction under its caps. Until its page is shown, it counts among the realm's
 * pending interactions, which a flood of authorization requests churns through; once shown,
 * among the shown ones, which such a flood never reaches. Both count against its browser.
 */
function keep(context: RealmContext, record: InteractionRecord): Promise<number> {
  const realm = context.realm.name;
  const tier = record.shown ? 'shown' : 'pending';
  return context.store.setCapped(INTERACTION_NAMESPACE, recordId(realm, record.id), record, {
    ttlSeconds: record.shown ? SHOWN_TTL_SECONDS : PENDING_TTL_SECONDS,
    caps: [
      { key: `interaction/${realm}/${tier}`, max: context.limits.interactionsPerRealm },
      {
        key: `interaction/${realm}/browser/${record.browserBinding}`,
        max: INTERACTIONS_PER_BROWSER,
      },
    ],
  });
}

/** The live interaction of that id if the request comes from the browser that started it. */
async function readBound(
  context: RealmContext,
  id: string,
  cookieHeader: string | undefined,
): Promise<Revised<InteractionRecord> | undefined> {
  const browserId = browserIdOf(cookieHeader, context.realm);
  if (browserId === undefined) return undefined;
  const read = await context.store.read<InteractionRecord>(
    INTERACTION_NAMESPACE,
    recordId(context.realm.name, id),
  );
  return read && read.value.browserBinding === tokenDigest(browserId) ? read : undefined;
}

/**
 * What the host's page shows; undefined for an unknown, expired or finished interaction, or when
 * `cookieHeader` (the browser's Cookie header) is not that of the browser that started it.
 */
export async function interactionDetails(
  context: RealmContext,
  id: string,
  cookieHeader: string | undefined,
): Promise<InteractionDetails | undefined> {
  const read = await readBound(context, id, cookieHeader);
  if (!read || read.value.result) return undefined;
  // The user is here: from now on the interaction has the time to sign in. Written without a
  // revision check, so a finish racing with this very first showing could be lost (the user then
  // starts over); hosts show their page before its form can finish anything.
  if (!read.value.shown) await keep(context, { ...read.value, shown: true });
  return await detailsOf(context, read.value);
}

/** What the host's page shows of an interaction; `found` is its client when the caller has it. */
export async function detailsOf(
  context: RealmContext,
  record: InteractionRecord,
  found?: Client,
): Promise<InteractionDetails> {
  const { request } = record;
  const client = found ?? (await findClient(context, request.clientId));
  const details: InteractionDetails = {
    id: record.id,
    realm: record.realm,
    prompt: record.prompt,
    client: {
      id: request.clientId,
      ...(client?.config.client_name ? { name: client.config.client_name } : {}),
      ...(client?.source === 'metadata_document'
        ? { metadataDocument: redirectTarget(request.redirectUri) }
        : {}),
    },
    redirectUri: request.redirectUri,
    scopes: consentScopes(request),
    requestedPrompt: [...request.prompt],
  };
  if (request.resource !== undefined) details.resource = request.resource;
  if (request.maxAge !== undefined) details.maxAge = request.maxAge;
  const acrValues = [...new Set([...(request.acrValues ?? []), ...(request.requiredAcr ?? [])])];
  if (acrValues.length > 0) details.acrValues = acrValues;
  if (request.uiLocales) details.uiLocales = [...request.uiLocales];
  if (request.loginHint !== undefined) details.loginHint = request.loginHint;
  if (request.expectedSub !== undefined) details.expectedSub = request.expectedSub;
  if (request.hintedSub !== undefined) details.hintedSub = request.hintedSub;
  if (record.sub !== undefined) details.sub = record.sub;
  if (request.device) details.device = { userCode: formatUserCode(request.device.userCode) };
  return details;
}

/** The host a metadata document client sends the user back to, and whether it is loopback. */
function redirectTarget(
  redirectUri: string,
): NonNullable<InteractionDetails['client']['metadataDocument']> {
  const { hostname } = new URL(redirectUri);
  return { redirectHost: hostname, loopback: isLoopbackHostname(hostname) };
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
  cookieHeader: string | undefined,
): Promise<string> {
  const read = await readBound(context, id, cookieHeader);
  if (!read || read.value.result) {
    throw new InteractionError('unknown, expired or finished interaction, or another browser');
  }
  const problem = resultProblem(read.value, result, nowSeconds(context));
  if (problem) throw new InteractionError(problem);
  // Compare-and-set: of two concurrent finishes only one result is recorded.
  const key = recordId(context.realm.name, id);
  const stored = await context.store.replace(INTERACTION_NAMESPACE, key, read.revision, {
    ...read.value,
    result,
  });
  if (!stored) throw new InteractionError('unknown, expired or finished interaction');
  return resumeUrl(context, id);
}

const SUB = /^[\x21-\x7e]{1,255}$/;
const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((each) => typeof each === 'string');

/**
 * What is wrong with a host's result, or undefined. Results come from application code, typed or
 * not, and end up in tokens: checked here rather than trusted.
 */
function resultProblem(
  record: InteractionRecord,
  result: InteractionResult,
  now: number,
): string | undefined {
  if ('error' in result) {
    return ['access_denied', 'login_required'].includes(result.error)
      ? undefined
      : 'error must be access_denied or login_required';
  }
  if (record.prompt === 'login' && !('login' in result))
    return 'a login interaction needs a login result';
  if (record.prompt === 'consent' && !('consent' in result))
    return 'a consent interaction needs a consent result';
  if ('login' in result) {
    const { sub, authTime, amr, acr } = result.login;
    if (typeof sub !== 'string' || !SUB.test(sub))
      return 'login.sub must be 1 to 255 printable ASCII characters';
    if (record.sub !== undefined && sub !== record.sub)
      return 'the login result names another user than the session';
    if (
      authTime !== undefined &&
      !(Number.isInteger(authTime) && authTime > 0 && authTime <= now)
    ) {
      return 'login.authTime must be whole seconds since the epoch, not in the future';
    }
    if (amr !== undefined && !isStrings(amr)) return 'login.amr must be a list of strings';
    if (acr !== undefined && typeof acr !== 'string') return 'login.acr must be a string';
  }
  if (result.consent !== undefined && !isStrings(result.consent.scopes)) {
    return 'consent.scopes must be a list of strings';
  }
  return undefined;
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
  const read = await readBound(context, id, request.headers.cookie);
  if (!read?.value.result) return undefined;
  const consumed = await context.store.consume<InteractionRecord>(
    INTERACTION_NAMESPACE,
    recordId(context.realm.name, id),
  );
  return consumed?.firstUse && consumed.value.result ? consumed.value : undefined;
}

export const resumeUrl = (context: RealmContext, id: string) =>
  `${context.realm.url(ENDPOINT_PATHS.authorizationResume)}?interaction=${encodeURIComponent(id)}`;

const recordId = (realmName: string, id: string) => `${realmName}/${id}`;
