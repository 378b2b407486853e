// A strict TypeScript ESM app: Hono on Node.js. tsc --noEmit checks it, tsx runs it.
import { readFileSync } from 'node:fs';
import { createProvider, type RealmInput } from '@gatehouse-oidc/core';
import { gatehouse } from '@gatehouse-oidc/hono';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const port = Number(process.env.PORT);
const realm = JSON.parse(
  readFileSync(new URL('./realm.json', import.meta.url), 'utf8'),
) as RealmInput;
const provider = createProvider({ baseUrl: `http://127.0.0.1:${port}/auth`, realms: [realm] });
const app = new Hono();
app.route('/auth', gatehouse(provider));
serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => console.log('ready'));
