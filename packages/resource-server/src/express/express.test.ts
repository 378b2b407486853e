import type { AddressInfo } from 'node:net';
import express from 'express';
import express4 from 'express4';
import { describeMiddleware, tokenSummary } from '../../test-support/middleware-contract.js';
import { metadataHandler, requireToken } from './index.js';

for (const [name, framework] of [
  ['Express 5', express],
  ['Express 4', express4 as unknown as typeof express],
] as const) {
  describeMiddleware(name, async (server) => {
    const app = framework();
    app.get(server.metadataPath, metadataHandler(server));
    app.get('/things', requireToken(server), (req, res) => {
      res.json(tokenSummary(req.accessToken));
    });
    app.post('/things', requireToken(server, { scopes: ['api:write'] }), (req, res) => {
      res.json(tokenSummary(req.accessToken));
    });
    const listener = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
      const started = app.listen(0, '127.0.0.1', () => resolve(started));
    });
    const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
    return {
      request: (path, init) => fetch(`${base}${path}`, init),
      close: () => new Promise((resolve) => listener.close(() => resolve())),
    };
  });
}
