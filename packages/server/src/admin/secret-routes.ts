import { setTimeout } from 'node:timers/promises';
import { DEFAULT_SECRET_OVERLAP_SECONDS, type Provider, zodIssues } from '@gatehouse-oidc/core';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { API_REALM_CACHE_MS } from '../realms/realm-catalog.js';
import type { RealmEditor } from '../realms/realm-editor.js';
import { answer, invalid, parseBody } from './edit-answers.js';

export interface SecretRoutesOptions {
  editor: RealmEditor;
  /** Revokes the client's tokens when the body asks. */
  provider: Provider;
}

/** Time for a token request that authenticated just before an instance read the rotation. */
const IN_FLIGHT_MARGIN_MS = 500;

const MAX_BODY_BYTES = 1024;

/** A replaced secret working longer than this is no longer a rotation. */
const MAX_OVERLAP_SECONDS = 30 * 86_400;

const rotationBody = z.strictObject({
  overlap_seconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_OVERLAP_SECONDS)
    .default(DEFAULT_SECRET_OVERLAP_SECONDS),
  revoke_tokens: z.boolean().default(false),
});

interface ClientParams {
  realm: string;
  client_id: string;
}

/**
 * `POST /admin/realms/{realm}/clients/{client_id}/secret` (docs/standalone-server.md): a new
 * generated secret while the previous one works for `overlap_seconds`, and with `revoke_tokens`
 * every token of the client revoked at once, and again once every instance uses the new secret.
 * Registered inside the realm routes, whose token check and error answers apply.
 */
export const secretRoutes: FastifyPluginAsync<SecretRoutesOptions> = async (
  app,
  { editor, provider },
) => {
  // The body is two settings: the admin API's small limit, not that of realms and clients.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: MAX_BODY_BYTES },
    (_request, body, done) => done(null, body),
  );
  app.post<{ Params: ClientParams }>(
    '/realms/:realm/clients/:client_id/secret',
    async (request, reply) => {
      // No body at all is the defaults.
      const body = request.body === undefined ? { value: {} } : parseBody(request.body);
      if ('issues' in body) return invalid(reply, body.issues);
      const parsed = rotationBody.safeParse(body.value);
      if (!parsed.success) return invalid(reply, zodIssues(parsed.error));
      const { realm, client_id: clientId } = request.params;
      const outcome = await editor.rotateSecret(realm, clientId, parsed.data.overlap_seconds);
      if (outcome.status === 'rotated' && parsed.data.revoke_tokens) {
        await provider.clients.revokeTokens(realm, clientId);
        // An instance that has not read the rotation yet still takes the previous secret, even
        // with no overlap: what it issues meanwhile is revoked too, before anyone has the new
        // secret, whose tokens are therefore never caught.
        await setTimeout(API_REALM_CACHE_MS + IN_FLIGHT_MARGIN_MS);
        await provider.clients.revokeTokens(realm, clientId);
      }
      return answer(reply, outcome);
    },
  );
};
