import type { RealmContext } from '../context.js';
import { OAuthError } from '../errors/oauth-error.js';
import type { Params } from '../http/form.js';
import { verifyRealmJwt } from '../jwt/verify-realm-jwt.js';
import type { Client, Realm } from '../realms/realm.js';
import type { AccessTokenRecord, Actor } from '../tokens/access-token.js';
import { findAccessToken } from '../tokens/find-access-token.js';
import { ID_TOKEN_JWT_TYPE } from '../tokens/id-token.js';
import { USER_SCOPES } from './scope.js';

/** RFC 8693 §3: the token types this realm accepts and issues. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
export const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';

/** What a presented subject or actor token stands for. */
export interface ExchangedParty {
  sub: string;
  /** The client the token was issued to. */
  clientId: string;
  /** The most the exchanged token may carry. */
  scopes: readonly string[];
  /** The token family (grant) it belongs to: revoking that ends the exchanged token too. */
  grantId?: string;
  /** Who already acted for the subject. */
  act?: Actor;
  /** Seconds since the epoch when it expires; the exchanged token does not outlive it. */
  exp: number;
}

type Role = 'subject' | 'actor';

/**
 * The `subject_token` or `actor_token` of a token-exchange request with its `_type`: a live access
 * token of this realm (a subject may also be an ID token of this realm), held by the requesting
 * client: issued to it, or meant for a resource it serves. Anything else is invalid_grant, with a
 * description that never repeats the token.
 */
export async function exchangedParty(
  params: Params,
  role: Role,
  client: Client,
  context: RealmContext,
): Promise<ExchangedParty> {
  const token = params.get(`${role}_token`);
  const type = params.get(`${role}_token_type`);
  if (token === undefined || type === undefined)
    throw new OAuthError('invalid_request', `${role}_token and ${role}_token_type are required`);
  if (type === ACCESS_TOKEN_TYPE) return accessTokenParty(token, role, client, context);
  if (type === ID_TOKEN_TYPE && role === 'subject') return idTokenParty(token, client, context);
  throw new OAuthError('invalid_request', `${role}_token_type is not supported`);
}

async function accessTokenParty(
  token: string,
  role: Role,
  client: Client,
  context: RealmContext,
): Promise<ExchangedParty> {
  const record = (await findAccessToken(context, token))?.record;
  if (!record || !heldBy(client, record, context.realm)) {
    throw new OAuthError(
      'invalid_grant',
      `${role}_token is not an active access token of this realm issued to or meant for this client`,
    );
  }
  return {
    sub: record.sub,
    clientId: record.client_id,
    scopes: record.scope === '' ? [] : record.scope.split(' '),
    exp: record.exp,
    ...(record.grant_id === undefined ? {} : { grantId: record.grant_id }),
    ...(record.act === undefined ? {} : { act: record.act }),
  };
}

/**
 * An unexpired ID token of this realm issued to the client. It says who signed in, not what they
 * allowed: the exchanged token carries at most the client's own scopes that need no user, as a
 * client credentials token would, and belongs to no grant (it lives until the ID token expires).
 */
async function idTokenParty(
  token: string,
  client: Client,
  context: RealmContext,
): Promise<ExchangedParty> {
  const claims = await verifyRealmJwt(context, token, { typ: ID_TOKEN_JWT_TYPE });
  const audience = Array.isArray(claims?.aud) ? claims.aud : [claims?.aud];
  if (
    !claims ||
    typeof claims.sub !== 'string' ||
    typeof claims.exp !== 'number' ||
    !audience.includes(client.id)
  ) {
    throw new OAuthError(
      'invalid_grant',
      'subject_token is not a valid ID token of this realm issued to this client',
    );
  }
  return {
    sub: claims.sub,
    clientId: client.id,
    scopes: [...client.scopes].filter((scope) => !USER_SCOPES.has(scope)),
    exp: claims.exp,
  };
}

/** A token the client may present: issued to it, or meant for a resource it introspects as. */
function heldBy(client: Client, record: AccessTokenRecord, realm: Realm): boolean {
  if (record.client_id === client.id) return true;
  return (
    record.resource !== undefined && realm.resources.get(record.resource)?.client_id === client.id
  );
}

/** RFC 8693 §4.1: the actor now, with whoever acted for the subject before as its `act`. */
export function delegatedActor(subject: ExchangedParty, actor: ExchangedParty): Actor {
  return {
    sub: actor.sub,
    ...(actor.clientId === actor.sub ? {} : { client_id: actor.clientId }),
    ...(subject.act === undefined ? {} : { act: subject.act }),
  };
}
