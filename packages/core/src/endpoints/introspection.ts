import { authenticateClient } from '../client-auth/authenticate.js';
import type { EndpointHandler, RealmContext } from '../context.js';
import { invalidRequest } from '../errors/oauth-error.js';
import type { Params } from '../http/form.js';
import { readForm } from '../http/read-form.js';
import { noStoreJson } from '../http/responses.js';
import type { Client } from '../realms/realm.js';
import type { AccessTokenRecord } from '../tokens/access-token.js';
import { findAccessToken } from '../tokens/find-access-token.js';
import { ENDPOINT_PATHS } from './paths.js';

/**
 * Token introspection (RFC 7662, interface §4.4). A token meant for a Protected Resource is shown
 * only to that resource's own client; a token issued without a resource only to the client it was
 * issued to. Everything else — unknown, expired, revoked, someone else's, not an access token —
 * is the same `{active:false}`, with the realm's status (400 by the interface, 200 by RFC 7662).
 */
export const introspectionEndpoint: EndpointHandler = async (request, context) => {
  const params = readForm(request, context.maxBodyBytes);
  const client = await authenticateClient(
    request,
    params,
    context,
    context.realm.url(ENDPOINT_PATHS.introspection),
  );
  const token = requiredToken(params);
  const record = await findAccessToken(context, token);
  if (!record || !mayIntrospect(client, record, context)) {
    return noStoreJson(context.realm.config.introspection_inactive_status, { active: false });
  }
  return noStoreJson(200, activeResponse(record, context));
};

/** `token` is required and `token_type_hint`, when sent, must be one RFC 7009 registers. */
export function requiredToken(params: Params): string {
  const hint = params.get('token_type_hint');
  if (hint !== undefined && hint !== 'access_token' && hint !== 'refresh_token') {
    throw invalidRequest('token_type_hint must be access_token or refresh_token');
  }
  const token = params.get('token');
  if (token === undefined) throw invalidRequest('token is required');
  return token;
}

function mayIntrospect(client: Client, record: AccessTokenRecord, context: RealmContext): boolean {
  if (record.resource === undefined) return record.client_id === client.id;
  return context.realm.resources.get(record.resource)?.client_id === client.id;
}

function activeResponse(record: AccessTokenRecord, context: RealmContext): Record<string, unknown> {
  const body: Record<string, unknown> = {
    active: true,
    iss: context.realm.issuer,
    sub: record.sub,
    aud: record.aud,
    nbf: record.nbf,
    iat: record.iat,
    exp: record.exp,
    scope: record.scope,
    client_id: record.client_id,
    token_type: 'Bearer',
    jti: record.jti,
  };
  if (record.resource !== undefined) body.resource = record.resource;
  return body;
}
