import { parse } from 'node:querystring';
import Fastify from 'fastify';
import type { RunningServer } from './running-server.js';

/** A fixed answer shaped like a token response: what the ceiling server sends for every request. */
const FIXED_TOKEN_RESPONSE = JSON.stringify({
  access_token: 'ceiling',
  token_type: 'Bearer',
  expires_in: 600,
});

/**
 * The most a Fastify server on this machine can do for the same request: parse the urlencoded
 * form, look at one field, answer a fixed JSON. No OAuth work at all.
 */
export async function startCeiling(): Promise<RunningServer> {
  const app = Fastify();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, parse(body as string)),
  );
  app.post('/token', async (request, reply) => {
    const form = request.body as Record<string, unknown>;
    if (form.grant_type !== 'client_credentials')
      return reply.code(400).send({ error: 'unsupported_grant_type' });
    return reply
      .header('content-type', 'application/json; charset=utf-8')
      .send(FIXED_TOKEN_RESPONSE);
  });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  return { baseUrl, tokenPath: '/token', close: () => app.close() };
}
