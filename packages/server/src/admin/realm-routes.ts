import type { ConfigIssue, Provider } from '@gatehouse-oidc/core';
import { formatIssue, OAuthError } from '@gatehouse-oidc/core';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { depthProblem } from '../config/json-depth.js';
import { endRealmSignIns, revokeClientGrants } from '../realms/leftovers.js';
import type { CatalogRealm, RealmCatalog } from '../realms/realm-catalog.js';
import type { EditOutcome, RealmEditor } from '../realms/realm-editor.js';
import { RealmSecretsUnreadable } from '../realms/realm-secrets-unreadable.js';
import { withoutSecrets } from './without-secrets.js';

export interface RealmRoutesOptions {
  catalog: RealmCatalog;
  editor: RealmEditor;
  /** Ends the sessions and grants a deleted realm or client leaves behind. */
  provider: Provider;
}

/** A realm with many clients and users is larger than the admin API's other bodies. */
const MAX_BODY_BYTES = 256 * 1024;

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
  { catalog, editor, provider },
) => {
  app.removeAllContentTypeParsers();
  // The body stays text: JSON that does not parse is answered like any other invalid body.
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: MAX_BODY_BYTES },
    (_request, body, done) => done(null, body),
  );

  app.get('/realms', async (_request, reply) =>
    json(reply, 200, { realms: await catalog.names() }),
  );

  app.get<{ Params: RealmParams }>('/realms/:realm', async (request, reply) => {
    const realm = await catalog.shown(request.params.realm);
    if (!realm) throw new OAuthError('not_found');
    return json(reply, 200, withoutSecrets(realm));
  });

  app.put<{ Params: RealmParams }>('/realms/:realm', async (request, reply) => {
    const body = parseBody(request.body);
    if ('issues' in body) return invalid(reply, body.issues);
    return answer(reply, await editor.putRealm(request.params.realm, body.value), () =>
      catalog.shown(request.params.realm),
    );
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
      if (found) await endRealmSignIns(provider, name, subsOf(found.config.users));
    }
    return answer(reply, await editor.deleteRealm(name));
  });

  app.get<{ Params: ClientParams }>('/realms/:realm/clients/:client_id', async (request, reply) => {
    const client = await findClient(catalog, request.params);
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
      const outcome = await editor.deleteClient(realm, clientId);
      // After not_found too: a DELETE repeated because the revocation failed finds the client gone.
      if (outcome.status === 'deleted' || outcome.status === 'not_found') {
        const users = (await catalog.shown(realm))?.users ?? [];
        await revokeClientGrants(provider, realm, clientId, subsOf(users));
      }
      return answer(reply, outcome);
    },
  );
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

function parseBody(body: unknown): { value: unknown } | { issues: ConfigIssue[] } {
  if (typeof body !== 'string') return { issues: [{ path: '', message: 'must be a JSON body' }] };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return { issues: [{ path: '', message: 'is not valid JSON' }] };
  }
  const tooDeep = depthProblem(value);
  return tooDeep ? { issues: [{ path: '', message: tooDeep }] } : { value };
}

/** The answer to a write; a PUT answers with what it wrote, as GET shows it. */
async function answer(
  reply: FastifyReply,
  outcome: EditOutcome,
  written?: () => Promise<object | undefined>,
): Promise<FastifyReply> {
  switch (outcome.status) {
    case 'created':
    case 'replaced': {
      const value = await written?.();
      return json(reply, outcome.status === 'created' ? 201 : 200, withoutSecrets(value ?? {}));
    }
    case 'deleted':
      return reply.code(204).header('cache-control', 'no-store').send();
    case 'not_found':
      throw new OAuthError('not_found');
    case 'config_managed':
      throw new OAuthError(
        'config_managed',
        'this realm is written in the config file and changes only with it',
      );
    case 'invalid':
      return invalid(reply, outcome.issues);
    case 'secrets_unreadable':
      throw new OAuthError('secrets_unreadable', outcome.error.message);
  }
}

/**
 * 400 with every problem: `issues` as `gatehouse check` prints them, and the same joined into
 * one `error_description` kept to the characters RFC 6749 allows there.
 */
function invalid(reply: FastifyReply, issues: readonly ConfigIssue[]): FastifyReply {
  const { code, description } = new OAuthError(
    'invalid_request',
    issues.map(formatIssue).join('; '),
  );
  return json(reply, 400, { error: code, error_description: description, issues });
}

function json(reply: FastifyReply, status: number, body: object): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').send(body);
}
