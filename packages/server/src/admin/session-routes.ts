import { type Accounts, OAuthError, type Provider } from '@gatehouse-oidc/core';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';

export interface SessionRoutesOptions {
  provider: Provider;
  /** Who the realm's users are: a `sub` none of them has, with nothing stored, is answered 404. */
  accounts: Accounts;
}

interface UserParams {
  realm: string;
  sub: string;
}

/**
 * "Sessions and grants of a user" of the admin API (shared/design/standalone-server.md), on the
 * provider's sessions and grants API. Registered inside the admin routes, so their bearer check
 * and error handler apply: a thrown OAuthError is answered as it is. Nothing answered is a secret:
 * a session is shown by its sid, never by its cookie.
 */
export const sessionRoutes: FastifyPluginAsync<SessionRoutesOptions> = async (
  app,
  { provider, accounts },
) => {
  /**
   * Rejects with 404 when the user is unknown: no account and nothing the route `found` stored for
   * it. A user removed from the realm keeps its sessions and grants listed and revocable until
   * they are gone. Every 404 of the admin API is the contract's bare `{"error":"not_found"}`.
   */
  async function knownUser({ realm, sub }: UserParams, found: boolean): Promise<void> {
    if (!found && !(await accounts.findAccount(realm, sub))) throw new OAuthError('not_found');
  }

  async function knownRealm(realm: string): Promise<void> {
    if (!(await provider.realm(realm))) throw new OAuthError('not_found');
  }

  app.get<{ Params: UserParams }>('/realms/:realm/users/:sub/sessions', async (request, reply) => {
    await knownRealm(request.params.realm);
    const sessions = await provider.sessions.list(request.params.realm, request.params.sub);
    await knownUser(request.params, sessions.length > 0);
    return sendJson(reply, {
      sessions: sessions.map(({ sid, authTime, clients }) => ({
        sid,
        auth_time: authTime,
        clients,
      })),
    });
  });

  app.delete<{ Params: UserParams }>(
    '/realms/:realm/users/:sub/sessions',
    async (request, reply) => {
      await knownRealm(request.params.realm);
      const ended = await provider.sessions.endAll(request.params.realm, request.params.sub);
      await knownUser(request.params, ended > 0);
      return reply.code(204).send();
    },
  );

  app.delete<{ Params: { realm: string; sid: string } }>(
    '/realms/:realm/sessions/:sid',
    async (request, reply) => {
      const { realm, sid } = request.params;
      await knownRealm(realm);
      if (!(await provider.sessions.end(realm, sid))) throw new OAuthError('not_found');
      return reply.code(204).send();
    },
  );

  app.get<{ Params: UserParams }>('/realms/:realm/users/:sub/grants', async (request, reply) => {
    await knownRealm(request.params.realm);
    const grants = await provider.grants.list(request.params.realm, request.params.sub);
    await knownUser(request.params, grants.length > 0);
    return sendJson(reply, {
      grants: grants.map(({ clientId, scopes, createdAt }) => ({
        client_id: clientId,
        scope: scopes.join(' '),
        created_at: createdAt,
      })),
    });
  });

  app.delete<{ Params: UserParams & { client_id: string } }>(
    '/realms/:realm/users/:sub/grants/:client_id',
    async (request, reply) => {
      const { realm, sub, client_id: clientId } = request.params;
      await knownRealm(realm);
      if (!(await provider.grants.revoke(realm, sub, clientId))) throw new OAuthError('not_found');
      return reply.code(204).send();
    },
  );
};

/** Who signed in where is personal data: no cache keeps it. */
function sendJson(reply: FastifyReply, body: object) {
  return reply.code(200).header('cache-control', 'no-store').send(body);
}
