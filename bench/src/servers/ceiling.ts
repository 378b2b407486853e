import { BENCH_CIBA_EXPIRES_IN, BENCH_CIBA_INTERVAL } from '../ciba-request.js';
import type { GrantType } from '../token-request.js';
import { formApp } from './form-app.js';
import type { RunningServer } from './running-server.js';

/** A fixed answer shaped like a token response: what the ceiling sends for every token request. */
const FIXED_TOKEN_RESPONSE = JSON.stringify({
  access_token: 'ceiling',
  token_type: 'Bearer',
  expires_in: 600,
});

/** A fixed answer shaped like a CIBA initiation's (CIBA Core 1.0 §7.3). */
const FIXED_BACKCHANNEL_RESPONSE = JSON.stringify({
  auth_req_id: 'ceiling',
  expires_in: BENCH_CIBA_EXPIRES_IN,
  interval: BENCH_CIBA_INTERVAL,
});

/** The grants whose token requests the bench sends. */
const BENCH_GRANTS = new Set<string>([
  'client_credentials',
  'authorization_code',
  'refresh_token',
] satisfies GrantType[]);

/**
 * The most a Fastify server on this machine can do for the same request: parse the urlencoded
 * form, look at one field, answer a fixed JSON. No OAuth work at all. It takes every scenario's
 * request that the floor is computed for (floor.ts): a token request of each grant the bench
 * sends, and a CIBA initiation; it mints nothing, so a user grant's credential is any string.
 */
export async function startCeiling(): Promise<RunningServer> {
  const app = formApp();
  const json = 'application/json; charset=utf-8';
  app.post('/token', async (request, reply) => {
    const form = request.body as Record<string, unknown>;
    if (typeof form.grant_type !== 'string' || !BENCH_GRANTS.has(form.grant_type))
      return reply.code(400).send({ error: 'unsupported_grant_type' });
    return reply.header('content-type', json).send(FIXED_TOKEN_RESPONSE);
  });
  app.post('/bc-authorize', async (request, reply) => {
    const form = request.body as Record<string, unknown>;
    if (form.scope !== 'openid') return reply.code(400).send({ error: 'invalid_scope' });
    return reply.header('content-type', json).send(FIXED_BACKCHANNEL_RESPONSE);
  });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    baseUrl,
    tokenPath: '/token',
    backchannelPath: '/bc-authorize',
    fixedAnswers: true,
    close: () => app.close(),
  };
}
