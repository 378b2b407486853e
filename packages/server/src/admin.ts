import { createHash, timingSafeEqual } from 'node:crypto';
import { errorToResponse, OAuthError, oauthErrorResponse, type Provider } from '@gatehouse/core';
import { send } from '@gatehouse/fastify';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { parseCibaApproval } from './ciba-approval.js';
import { type ErrorReporter, redactAuthReqId } from './report-error.js';

export interface AdminOptions {
  provider: Provider;
  /** The configured admin_token; every route here needs `Authorization: Bearer {token}`. */
  token: string;
  report: ErrorReporter;
}

/** The largest body an admin request carries is a CIBA approval; anything larger is refused early. */
const MAX_BODY_BYTES = 1024;

/**
 * The admin API, registered under `/admin`. Every route, known or not, first checks the bearer
 * token, so an unauthenticated caller learns nothing about which realms or routes exist.
 */
export const adminRoutes: FastifyPluginAsync<AdminOptions> = async (
  app,
  { provider, token, report },
) => {
  const isAdmin = bearerCheck(token);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES },
    (_request, body, done) => done(null, body),
  );
  app.addHook('onRequest', async (request, reply) => {
    if (isAdmin(request.headers.authorization)) return;
    const challenge = request.headers.authorization ? 'Bearer error="invalid_token"' : 'Bearer';
    const refusal = new OAuthError('invalid_token', undefined, {
      status: 401,
      headers: { 'www-authenticate': challenge },
    });
    return send(reply, oauthErrorResponse(refusal));
  });
  // The provider's own error answers: no internal detail ever reaches the caller.
  app.setErrorHandler((error: { statusCode?: number }, request, reply) => {
    const status = error.statusCode ?? 500;
    const response =
      status >= 400 && status < 500
        ? oauthErrorResponse(new OAuthError('invalid_request', undefined, { status }))
        : errorToResponse(error, (unexpected) =>
            report(unexpected, { method: request.method, path: pathOf(request) }),
          );
    return send(reply, response);
  });

  app.post<{ Params: { realm: string } }>('/realms/:realm/keys/rotate', async (request, reply) => {
    const { realm } = request.params;
    if (!(await provider.realm(realm)))
      return send(reply, oauthErrorResponse(notFound('unknown realm')));
    await provider.rotateKeys(realm);
    return reply.code(204).send();
  });

  // Thrown OAuthErrors (404, 400) reach the error handler above, which answers them as they are.
  app.post<{ Params: CibaParams }>(
    '/realms/:realm/ciba/:auth_req_id/:decision',
    async (request, reply) => {
      const { realm, auth_req_id: authReqId, decision } = request.params;
      if (decision !== 'approve' && decision !== 'deny') throw notFound('no such admin endpoint');
      if (!(await provider.realm(realm))) throw notFound('unknown realm');
      const decided =
        decision === 'approve'
          ? await provider.ciba.approve(
              realm,
              authReqId,
              parseCibaApproval(bodyOf(request), request.headers['content-type']),
            )
          : await provider.ciba.deny(realm, authReqId);
      if (!decided) throw notFound('no pending backchannel request with this auth_req_id');
      return reply.code(204).send();
    },
  );

  app.all('/*', async (_request, reply) =>
    send(reply, oauthErrorResponse(notFound('no such admin endpoint'))),
  );
};

interface CibaParams {
  realm: string;
  auth_req_id: string;
  decision: string;
}

const notFound = (description: string) => new OAuthError('not_found', description, { status: 404 });

/** Compares digests, so neither the content nor the length of the token leaks through timing. */
function bearerCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const presented = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1];
    return presented !== undefined && timingSafeEqual(digest(presented), expected);
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

function bodyOf(request: FastifyRequest): Buffer | undefined {
  return Buffer.isBuffer(request.body) ? request.body : undefined;
}

/** The path without the query, and without an auth_req_id in full: it is a credential. */
function pathOf(request: FastifyRequest): string {
  const path = request.url.split('?', 1)[0] ?? request.url;
  return path.replace(
    /(\/ciba\/)([^/]+)/,
    (_match, prefix: string, authReqId: string) => `${prefix}${redactAuthReqId(authReqId)}`,
  );
}
