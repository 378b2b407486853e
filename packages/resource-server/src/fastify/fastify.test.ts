import Fastify from 'fastify';
import Fastify4 from 'fastify4';
import { describeMiddleware, tokenSummary } from '../../test-support/middleware-contract.js';
import { metadataHandler, requireToken } from './index.js';

for (const [name, framework] of [
  ['Fastify 5', Fastify],
  ['Fastify 4', Fastify4 as unknown as typeof Fastify],
] as const) {
  describeMiddleware(name, async (server) => {
    const app = framework();
    app.get(server.metadataPath, metadataHandler(server));
    app.get('/things', { preHandler: requireToken(server) }, async (request) =>
      tokenSummary(request.accessToken),
    );
    app.post(
      '/things',
      { preHandler: requireToken(server, { scopes: ['api:write'] }) },
      async (request) => tokenSummary(request.accessToken),
    );
    await app.ready();
    return {
      async request(path, init = {}) {
        const answer = await app.inject({
          method: (init.method ?? 'GET') as 'GET',
          url: path,
          headers: init.headers as Record<string, string>,
        });
        return new Response(answer.body === '' ? null : answer.body, {
          status: answer.statusCode,
          headers: answer.headers as Record<string, string>,
        });
      },
      close: () => app.close(),
    };
  });
}
