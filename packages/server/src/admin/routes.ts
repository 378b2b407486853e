import { createHash, timingSafeEqual } from 'node:crypto';
import {
  type Accounts,
  errorToResponse,
  OAuthError,
  oauthErrorResponse,
  type Provider,
  type Store,
} from '@gatehouse-oidc/core';
import { send } from '@gatehouse-oidc/fastify';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { parseCibaApproval } from '../ciba/approval.js';
import { type ErrorReporter, reportedPath } from '../report-error.js';
import { addressKey } from '../throttle/address-key.js';
import { FailureCounter, type ThrottleLimit } from '../throttle/failure-counter.js';
import { type RealmRoutesOptions, realmRoutes } from './realm-routes.js';
import { sessionRoutes } from './session-routes.js';

export interface AdminOptions {
  provider: Provider;
  /** The provider's store, whose counters `GET /admin/store` answers. */
  store: Store;
  /** The configured admin_token; every route here needs `Authorization: Bearer {token}`. */
  token: string;
  report: ErrorReporter;
  /** The realms' users, for the routes that name one. */
  accounts: Accounts;
  /** Milliseconds since the epoch. */
  now: () => number;
  /** Leading bits of an IPv6 address the throttle counts as one address. */
  ipv6PrefixLength: number;
  /** The realms and clients the admin API reads and writes. */
  realms: Omit<RealmRoutesOptions, 'provider' | 'report'>;
}

/**
 * Failed authentications allowed per address before it is refused for the rest of the window:
 * an operator with a stale token sees 401s first, a guesser soon gets nothing but 429.
 */
export const ADMIN_FAILURE_LIMIT: ThrottleLimit = { maxFailures: 10, windowSeconds: 900 };
/** Addresses remembered at most; the oldest windows are forgotten first. */
const MAX_THROTTLED_ADDRESSES = 10_000;

/** The largest body, but for realms and clients, is a CIBA approval; anything larger is refused early. */
const MAX_BODY_BYTES = 1024;

/**
 * The admin API, registered under `/admin`. Every route, known or not, first checks the bearer
 * token, so an unauthenticated caller learns nothing about which realms or routes exist. The
 * right token is always served; any other from an address with too many failed checks gets 429.
 */
export const adminRoutes: FastifyPluginAsync<AdminOptions> = async (
  app,
  { provider, store, token, report, accounts, now, ipv6PrefixLength, realms },
) => {
  const isAdmin = bearerCheck(token);
  const failures = new FailureCounter(ADMIN_FAILURE_LIMIT, MAX_THROTTLED_ADDRESSES, now);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: MAX_BODY_BYTES },
    (_request, body, done) => done(null, body),
  );
  app.addHook('onRequest', async (request, reply) => {
    // Checked first: a stranger behind the operator's address (NAT, a proxy) must not lock the
    // operator, or the CIBA authenticator's back end, out with wrong tokens.
    if (isAdmin(request.headers.authorization)) return;
    const from = addressKey(request.ip, ipv6PrefixLength);
    const blockedUntil = failures.blockedUntil(from);
    if (blockedUntil !== undefined) {
      const retryAfter = Math.ceil((blockedUntil - now()) / 1000);
      const refusal = new OAuthError(
        'temporarily_unavailable',
        'too many failed admin authentications from this address',
        { status: 429, headers: { 'retry-after': String(retryAfter) } },
      );
      return send(reply, oauthErrorResponse(refusal));
    }
    failures.fail(from);
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
            report(unexpected, { method: request.method, path: reportedPath(request.url) }),
          );
    return send(reply, response);
  });

  app.post<{ Params: { realm: string } }>('/realms/:realm/keys/rotate', async (request, reply) => {
    const { realm } = request.params;
    if (!(await provider.realm(realm)))
      return send(reply, oauthErrorResponse(new OAuthError('not_found')));
    await provider.rotateKeys(realm);
    return reply.code(204).send();
  });

  // Thrown OAuthErrors (404, 400) reach the error handler above, which answers them as they are.
  app.post<{ Params: CibaParams }>(
    '/realms/:realm/ciba/:auth_req_id/:decision',
    async (request, reply) => {
      const { realm, auth_req_id: authReqId, decision } = request.params;
      if (decision !== 'approve' && decision !== 'deny') throw new OAuthError('not_found');
      if (!(await provider.realm(realm))) throw new OAuthError('not_found');
      const decided =
        decision === 'approve'
          ? await provider.ciba.approve(
              realm,
              authReqId,
              parseCibaApproval(bodyOf(request), request.headers['content-type']),
            )
          : await provider.ciba.deny(realm, authReqId);
      if (!decided) throw new OAuthError('not_found');
      return reply.code(204).send();
    },
  );

  app.register(sessionRoutes, { provider, accounts });
  app.register(realmRoutes, { ...realms, provider, report });

  // What this instance's store dropped or refused on its own: shedding means anonymous traffic
  // reaches the memory ceiling (docs/security.md).
  app.get('/store', async (_request, reply) =>
    reply.header('cache-control', 'no-store').send(store.metrics()),
  );

  app.all('/*', async (_request, reply) =>
    send(reply, oauthErrorResponse(new OAuthError('not_found'))),
  );
};

interface CibaParams {
  realm: string;
  auth_req_id: string;
  decision: string;
}

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
