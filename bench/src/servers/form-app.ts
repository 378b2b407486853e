import { parse } from 'node:querystring';
import Fastify, { type FastifyInstance } from 'fastify';

/**
 * A Fastify app that parses urlencoded bodies with `node:querystring`, the least a route taking
 * a token request can do: the bare route and the hand-written server share it, so the difference
 * between them is the flow's work alone.
 */
export function formApp(): FastifyInstance {
  const app = Fastify();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, parse(body as string)),
  );
  return app;
}
