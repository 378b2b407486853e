// A CommonJS app (its package.json has no "type"): Express (4 or 5), all loaded with require.
const { readdirSync } = require('node:fs');
const { dirname, join } = require('node:path');

// Every entry point of every package loads with require(): none uses top-level await. Not the
// core's ./testing and ./opentelemetry, which need vitest and @opentelemetry/api, optional peer
// dependencies this app does not install.
const skipped = new Set(['@gatehouse-oidc/core/testing', '@gatehouse-oidc/core/opentelemetry']);
const core = dirname(require.resolve('@gatehouse-oidc/core/package.json'));
const scope = dirname(core);
for (const dir of readdirSync(scope)) {
  const { name, exports } = require(join(scope, dir, 'package.json'));
  for (const subpath of Object.keys(exports)) {
    if (!skipped.has(`${name}${subpath.slice(1)}`)) require(name + subpath.slice(1));
  }
}

const { createProvider } = require('@gatehouse-oidc/core');
const { gatehouse } = require('@gatehouse-oidc/express');
const express = require('express');

const port = Number(process.env.PORT);
const provider = createProvider({
  baseUrl: `http://127.0.0.1:${port}/auth`,
  realms: [require('./realm.json')],
});
const app = express();
app.use('/auth', gatehouse(provider));
app.listen(port, '127.0.0.1', () => console.log('ready'));
