import { type ConfigIssue, formatIssue, OAuthError } from '@gatehouse-oidc/core';
import type { FastifyReply } from 'fastify';
import { depthProblem } from '../config/json-depth.js';
import type { EditOutcome } from '../realms/realm-editor.js';
import { withoutSecrets } from './without-secrets.js';

/** How the admin API's realm and client routes read bodies and answer what their writes came to. */

export function parseBody(body: unknown): { value: unknown } | { issues: ConfigIssue[] } {
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

/**
 * The answer to a write; a PUT answers with what it wrote, as GET shows it, a rotation with the
 * new secret (the one answer that holds a secret: it is shown once, never again).
 */
export async function answer(
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
    case 'rotated':
      return json(reply, 200, {
        client_secret: outcome.rotation.clientSecret,
        previous_secret_expires_at: outcome.rotation.previousSecretExpiresAt,
      });
  }
}

/**
 * 400 with every problem: `issues` as `gatehouse check` prints them, and the same joined into
 * one `error_description` kept to the characters RFC 6749 allows there.
 */
export function invalid(reply: FastifyReply, issues: readonly ConfigIssue[]): FastifyReply {
  const { code, description } = new OAuthError(
    'invalid_request',
    issues.map(formatIssue).join('; '),
  );
  return json(reply, 400, { error: code, error_description: description, issues });
}

export function json(reply: FastifyReply, status: number, body: object): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').send(body);
}
