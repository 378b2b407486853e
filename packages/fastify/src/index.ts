import { type GatehouseResponse, type Provider, payloadTooLargeResponse } from '@gatehouse/core';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';

export interface GatehouseFastifyOptions {
  provider: Provider;
}

/**
 * Mounts Gatehouse in a Fastify app: `app.register(gatehouse, { provider, prefix: '/auth' })`.
 * The plugin is encapsulated (not wrapped in fastify-plugin), so its raw-body parser and error
 * handler apply to Gatehouse's routes only, never to the host application's.
 */
export const gatehouse: FastifyPluginAsync<GatehouseFastifyOptions> = async (app, { provider }) => {
  const prefix = app.prefix;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: provider.maxBodyBytes }, (_request, body, done) =>
    done(null, body),
  );
  app.setErrorHandler((error: { statusCode?: number }, _request, reply) => {
    if (error.statusCode === 413) return send(reply, payloadTooLargeResponse());
    throw error;
  });

  app.all('/*', async (request, reply) => {
    const url = request.url;
    const queryAt = url.indexOf('?');
    const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
    const response = await provider.handle({
      method: request.method,
      path: pathname.slice(prefix.length) || '/',
      query: queryAt === -1 ? '' : url.slice(queryAt + 1),
      headers: request.headers as Record<string, string | undefined>,
      ...(Buffer.isBuffer(request.body) ? { body: request.body } : {}),
    });
    return send(reply, response);
  });
};

function send(reply: FastifyReply, response: GatehouseResponse): FastifyReply {
  return reply.code(response.status).headers(response.headers).send(response.body ?? '');
}
