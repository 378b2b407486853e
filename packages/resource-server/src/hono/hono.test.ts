import { Hono } from 'hono';
import { describeMiddleware, tokenSummary } from '../../test-support/middleware-contract.js';
import { metadataHandler, requireToken, type TokenVariables } from './index.js';

describeMiddleware('Hono', async (server) => {
  const app = new Hono<TokenVariables>();
  app.get(server.metadataPath, metadataHandler(server));
  app.get('/things', requireToken(server), (c) => c.json(tokenSummary(c.get('accessToken'))));
  app.post('/things', requireToken(server, { scopes: ['api:write'] }), (c) =>
    c.json(tokenSummary(c.get('accessToken'))),
  );
  return {
    request: async (path, init) => app.request(`http://127.0.0.1${path}`, init),
    close: async () => {},
  };
});
