// A CommonJS TypeScript module (module: nodenext) requiring the ESM packages, types included.
import core = require('@gatehouse-oidc/core');
import express = require('@gatehouse-oidc/express');

export const provider: core.Provider = core.createProvider({
  baseUrl: 'http://127.0.0.1:3000/auth',
  realms: [{ name: 'demo' }],
});
export const middleware = express.gatehouse(provider);
