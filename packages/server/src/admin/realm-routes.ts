import type { Provider } from '@gatehouse-oidc/core';
import { OAuthError } from '@gatehouse-oidc/core';
import type { FastifyPluginAsync } from 'fastify';
import { endRealmSignIns, revokeClientGrants } from '../realms/leftovers.js';
import type { CatalogRealm, RealmCatalog } from '../realms/realm-catalog.js';
import type { RealmEditor } from '../realms/realm-editor.js';
import { RealmSecretsUnreadable } from '../realms/realm-secrets-unreadable.js';
import { type ErrorReporter, reportedPath } from '../report-error.js';
import { answer, invalid, json, parseBody } from './edit-answers.js';
import {
  deleteRegisteredClient,
  deleteRegisteredClients,
  realmClientIds,
  shownRegisteredClient,
} from './registered-clients.js';
import { secretRoutes } from './secret-routes.js';
import { withoutSecrets } from './without-secrets.js';

export interface RealmRoutesOptions {
  catalog: RealmCatalog;
  editor: RealmEditor;
  /** Ends the sessions and grants a deleted realm or client leaves behind. */
  provider: Provider;
  /** Where a created realm's key that could not be made is told. */
  report: ErrorReporter;
}

/** A realm with many clients and users is larger than the admin API's other bodies. */
const MAX_BODY_BYTES = 256 * 1024;

/** Realms in a page of `GET /admin/realms?cursor=` without `limit`, and at most with it. */
const DEFAULT_PAGE = 100;
const MAX_PAGE = 1000;

/** The `limit` of a page of realms, or undefined when it is not a whole number in range. */
function pageSize(limit: string): number | undefined {
  const size = /^[0-9]{1,4}$/.test(limit) ? Number(limit) : Number.NaN;
  return size >= 1 && size <= MAX_PAGE ? size : undefined;
}

/**
 * Makes a new realm's signing key as it is written, so that its first token is not kept waiting
 * for it (every instance, restarted or not, then reads it). The realm is read and kept in memory
 * as its first request would, so a bulk of creations takes the place of idle realms there.
 * Should the key not be made (the store, the signer), that is reported and the realm is written
 * all the same: its first token makes the key, as a config file's realm's does.
 */
async function prepareKeys(
  provider: Provider,
  realm: string,
  reportFailure: (error: unknown) => void,
): Promise<void> {
  try {
    await provider.prepareKeys(realm);
  } catch (error) {
    reportFailure(error);
  }
}

interface RealmParams {
  realm: string;
}

interface ClientParams extends RealmParams {
  client_id: string;
}

/**
 * The realms and clients of the admin API (docs/standalone-server.md): registered inside the
 * admin routes, whose token check and error answers apply.
 */
export const realmRoutes: FastifyPluginAsync<RealmRoutesOptions> = async (
  app,
  { catalog, editor, provider, report },
) => {
  app.removeAllContentTypeParsers();
  // The body stays text: JSON that does not parse is answered like any other invalid body.
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: MAX_BODY_BYTES },
    (_request, body, done) => done(null, body),
  );

  app.get<{ Querystring: { limit?: string; cursor?: string } }>(
    '/realms',
    async (request, reply) => {
      const { limit, cursor } = request.query;
      if (limit === undefined && cursor === undefined) {
        return json(reply, 200, { realms: await catalog.names() });
      }
      const size = limit === undefined ? DEFAULT_PAGE : pageSize(limit);
      if (size === undefined) {
        return invalid(reply, [
          { path: 'limit', message: `must be a whole number from 1 to ${MAX_PAGE}` },
        ]);
      }
      const { names, more } = await catalog.page(size, cursor);
      const last = names.at(-1);
      return json(reply, 200, {
        realms: names,
        ...(more && last !== undefined ? { next_cursor: last } : {}),
      });
    },
  );

  app.get<{ Params: RealmParams }>('/realms/:realm', async (request, reply) => {
    const realm = await catalog.shown(request.params.realm);
    if (!realm) throw new OAuthError('not_found');
    return json(reply, 200, withoutSecrets(realm));
  });

  app.put<{ Params: RealmParams }>('/realms/:realm', async (request, reply) => {
    const body = parseBody(request.body);
    if ('issues' in body) return invalid(reply, body.issues);
    const outcome = await editor.putRealm(request.params.realm, body.value);
    if (outcome.status === 'created') {
      const where = { method: request.method, path: reportedPath(request.url) };
      await prepareKeys(provider, request.params.realm, (error) => report(error, where));
    }
    return answer(reply, outcome, () => catalog.shown(request.params.realm));
  });

  app.delete<{ Params: RealmParams }>('/realms/:realm', async (request, reply) => {
    const name = request.params.realm;
    if (!catalog.isFileRealm(name)) {
      // Before the realm goes: the provider needs it to find and end what was signed in to it,
      // so a realm whose secrets do not open here is refused like the other edits needing them.
      const found = await servable(catalog, name);
      if (found instanceof RealmSecretsUnreadable) {
        return answer(reply, { status: 'secrets_unreadable', error: found });
      }
      if (found) {
        const { users } = found.config;
        const clientIds = await realmClientIds(provider, found.config);
        await endRealmSignIns(provider, name, { subs: subsOf(users), clientIds });
        await deleteRegisteredClients(provider, found.config);
      }
    }
    return answer(reply, await editor.deleteRealm(name));
  });

  app.get<{ Params: RealmParams }>('/realms/:realm/clients', async (request, reply) => {
    const realm = await catalog.shown(request.params.realm);
    if (!realm) throw new OAuthError('not_found');
    return json(reply, 200, { clients: await realmClientIds(provider, realm) });
  });

  app.get<{ Params: ClientParams }>('/realms/:realm/clients/:client_id', async (request, reply) => {
    const { realm, client_id: clientId } = request.params;
    const shown = await catalog.shown(realm);
    const client =
      shown?.clients.find((each) => each.client_id === clientId) ??
      (shown && (await shownRegisteredClient(provider, shown, clientId)));
    if (!client) throw new OAuthError('not_found');
    return json(reply, 200, withoutSecrets(client));
  });

  app.put<{ Params: ClientParams }>('/realms/:realm/clients/:client_id', async (request, reply) => {
    const body = parseBody(request.body);
    if ('issues' in body) return invalid(reply, body.issues);
    const { realm, client_id: clientId } = request.params;
    return answer(reply, await editor.putClient(realm, clientId, body.value), () =>
      findClient(catalog, request.params),
    );
  });

  app.delete<{ Params: ClientParams }>(
    '/realms/:realm/clients/:client_id',
    async (request, reply) => {
      const { realm, client_id: clientId } = request.params;
      const shownRealm = await catalog.shown(realm);
      if (shownRealm && (await deleteRegisteredClient(provider, shownRealm, clientId))) {
        return reply.code(204).header('cache-control', 'no-store').send();
      }
      const outcome = await editor.deleteClient(realm, clientId);
      // After not_found too: a DELETE repeated because the revocation failed finds the client gone.
      if (outcome.status === 'deleted' || outcome.status === 'not_found') {
        const shown = await catalog.shown(realm);
        if (shown) await revokeClientGrants(provider, realm, clientId, subsOf(shown.users));
      }
      return answer(reply, outcome);
    },
  );

  app.register(secretRoutes, { editor, provider });
};

const subsOf = (users: readonly { sub: string }[]) => users.map((user) => user.sub);

/** The realm as the provider serves it, or why it cannot be: its client secrets do not open. */
async function servable(
  catalog: RealmCatalog,
  name: string,
): Promise<CatalogRealm | RealmSecretsUnreadable | undefined> {
  try {
    return await catalog.find(name);
  } catch (error) {
    if (error instanceof Error && error.cause instanceof RealmSecretsUnreadable) return error.cause;
    throw error;
  }
}

async function findClient(catalog: RealmCatalog, { realm, client_id }: ClientParams) {
  const found = await catalog.shown(realm);
  return found?.clients.find((client) => client.client_id === client_id);
}
