import { claimsForScopes } from '../accounts/claims.js';
import { authenticateClient } from '../client-auth/authenticate.js';
import { clientAuthenticationFailed } from '../client-auth/failure.js';
import type { EndpointHandler, RealmContext } from '../context.js';
import { readForm } from '../http/read-form.js';
import { noStoreJson } from '../http/responses.js';
import type { Client } from '../realms/realm.js';
import {
  type AccessTokenRecord,
  accessTokenType,
  isClientsOwnToken,
} from '../tokens/access-token.js';
import { findAccessToken } from '../tokens/find-access-token.js';
import { ENDPOINT_PATHS } from './paths.js';
import { requiredToken } from './token-parameter.js';

/**
 * Token introspection (RFC 7662, docs/interface.md §4.4). A token meant for a Protected Resource is
 * shown only to that resource's own client; a token issued without a resource only to the client it
 * was issued to. Everything else — unknown, expired, revoked, someone else's, its user unknown to
 * the accounts, not an access token — is the same `{active:false}`, with the realm's status (400
 * by docs/interface.md §7.3, 200 by RFC 7662).
 */
export const introspectionEndpoint: EndpointHandler = async (request, context) => {
  const params = readForm(request, context.maxBodyBytes);
  const client = await authenticateClient(request, params, context, ENDPOINT_PATHS.introspection);
  // RFC 7662 §2.1: the caller must authenticate; a public client only names itself.
  if (client.config.token_endpoint_auth_method === 'none') throw clientAuthenticationFailed('none');
  const token = requiredToken(params);
  const record = (await findAccessToken(context, token))?.record;
  if (!record || !mayIntrospect(client, record, context)) return inactive(context);
  const body = activeResponse(record, context);
  if (isClientsOwnToken(record)) return noStoreJson(200, body);
  const account = await context.accounts.findAccount(context.realm.name, record.sub);
  // A token whose user is gone grants nothing, as at userinfo and the refresh grant.
  if (!account) return inactive(context);
  if (record.scope.split(' ').includes('profile')) {
    Object.assign(body, profileClaims(account.claims));
  }
  return noStoreJson(200, body);
};

const inactive = (context: RealmContext) =>
  noStoreJson(context.realm.config.introspection_inactive_status, { active: false });

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
    token_type: accessTokenType(record),
    jti: record.jti,
  };
  if (record.resource !== undefined) body.resource = record.resource;
  if (record.act !== undefined) body.act = record.act;
  if (record.cnf) body.cnf = record.cnf;
  return body;
}

/**
 * The profile claims of docs/interface.md §2.6, in its order; the nullable ones are always present.
 */
const INTROSPECTION_PROFILE_CLAIMS = [
  'updated_at',
  'locale',
  'zoneinfo',
  'birthdate',
  'gender',
  'picture',
  'profile',
  'preferred_username',
  'nickname',
  'middle_name',
  'given_name',
  'family_name',
  'name',
] as const;
const NULLABLE_PROFILE_CLAIMS: ReadonlySet<string> = new Set([
  'birthdate',
  'gender',
  'middle_name',
]);

function profileClaims(claims: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const released = claimsForScopes(claims, ['profile']);
  const body: Record<string, unknown> = {};
  for (const name of INTROSPECTION_PROFILE_CLAIMS) {
    if (released[name] !== undefined) body[name] = released[name];
    else if (NULLABLE_PROFILE_CLAIMS.has(name)) body[name] = null;
  }
  return body;
}
