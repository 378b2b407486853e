// An ESM app: Fastify (4 or 5) with the node:crypto signer and verifier, as in docs/getting-started.md.
import { readFileSync } from 'node:fs';
import { createProvider } from '@gatehouse-oidc/core';
import { gatehouse } from '@gatehouse-oidc/fastify';
import { nodeCryptoSigner, nodeCryptoVerifier } from '@gatehouse-oidc/node-crypto';
import Fastify from 'fastify';

const port = Number(process.env.PORT);
const provider = createProvider({
  baseUrl: `http://127.0.0.1:${port}/auth`,
  realms: [JSON.parse(readFileSync(new URL('./realm.json', import.meta.url), 'utf8'))],
  signer: nodeCryptoSigner(),
  verifier: nodeCryptoVerifier(),
});
const app = Fastify();
await app.register(gatehouse, { provider, prefix: '/auth' });
await app.listen({ port, host: '127.0.0.1' });
console.log('ready');
