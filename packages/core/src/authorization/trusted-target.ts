import { findClient } from '../client-metadata/find-client.js';
import type { RealmContext } from '../context.js';
import type { Params } from '../http/form.js';
import type { Client } from '../realms/realm.js';
import { shownAtProvider } from './authorization-error.js';
import { tooLong } from './checks/parameter-lengths.js';
import type { ResponseTarget } from './redirect.js';
import { isRegisteredRedirectUri } from './redirect-uri-match.js';
import type { ResponseMode, ResponseType } from './request.js';
import { responseModeInRequestObject } from './request-object-mode.js';
import { defaultResponseMode, parseResponseType } from './response-type.js';

/** The client and where errors may be sent, once client_id and redirect_uri are trusted. */
export interface TrustedTarget {
  client: Client;
  target: ResponseTarget;
}

/**
 * docs/interface.md §7.1: until client_id names a client of the realm (configured, or described
 * by its metadata document) and redirect_uri is one of its registered URIs
 * (redirect-uri-match.ts: exact strings, a native client's loopback port aside) nothing may be
 * redirected.
 */
export async function trustedTarget(params: Params, context: RealmContext): Promise<TrustedTarget> {
  if (params.repeated.has('client_id') || params.repeated.has('redirect_uri')) {
    throw shownAtProvider('invalid_request', 'client_id or redirect_uri is repeated');
  }
  const clientId = params.get('client_id');
  const client = clientId === undefined ? undefined : await findClient(context, clientId);
  if (!client)
    throw shownAtProvider('invalid_client_id', 'client_id is not a client of this realm');
  const redirectUri = params.get('redirect_uri');
  if (redirectUri === undefined || !isRegisteredRedirectUri(client, redirectUri)) {
    throw shownAtProvider('invalid_redirect_uri', 'redirect_uri is not registered for this client');
  }
  const responseType = parseResponseType(params.get('response_type') ?? '');
  // Of a repeated state or response_mode, none of the values can be told to be the client's.
  const state = params.repeated.has('state') ? undefined : params.get('state');
  const echoState = state !== undefined && !tooLong(params, 'state');
  const responseMode = params.repeated.has('response_mode')
    ? undefined
    : (params.get('response_mode') ?? responseModeInRequestObject(params));
  return {
    client,
    target: {
      redirectUri,
      responseMode: errorResponseMode(responseMode, client, responseType),
      ...(echoState ? { state } : {}),
    },
  };
}

/**
 * How errors reach the client: the requested mode if the client may use it, else the default of
 * the response type; never the query for a response type that carries tokens.
 */
function errorResponseMode(
  requested: string | undefined,
  client: Client,
  type: ResponseType | undefined,
): ResponseMode {
  const fallback = defaultResponseMode(type);
  const allowed = client.config.response_modes.find((mode) => mode === requested);
  if (allowed === undefined || allowed === 'query') return fallback;
  return allowed;
}
