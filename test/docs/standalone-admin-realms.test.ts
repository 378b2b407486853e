import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildServer, parseServerConfig } from '@gatehouse-oidc/server';
import { afterAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, ROOT, validConfig } from '../server/support.js';
import { fencedBlocks } from './markdown.js';

/** The realm object of docs/standalone-server.md, "Realms and clients", as its curl calls send it. */

const page = readFileSync(join(ROOT, 'docs/standalone-server.md'), 'utf8');
const section = page.slice(page.indexOf('### Realms and clients'));
const realmJson = fencedBlocks(section).find((block) => block.lang === 'json')?.body ?? '';

const server = buildServer(parseServerConfig(validConfig()));
afterAll(() => server.app.close());

const admin = (method: 'GET' | 'PUT' | 'DELETE', path: string, payload?: string) =>
  server.app.inject({
    method,
    url: `/admin${path}`,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(payload !== undefined && { payload }),
  });

describe('docs/standalone-server.md: realms and clients', () => {
  it('creates the realm of the page, whose discovery then answers, and deletes its client', async () => {
    const created = await admin('PUT', '/realms/shop', realmJson);
    expect(created.statusCode, created.body).toBe(201);
    const discovery = await server.app.inject({
      url: '/oauth/shop/.well-known/openid-configuration',
    });
    expect(discovery.json().issuer).toBe('http://127.0.0.1:3000/oauth/shop');
    const shown = await admin('GET', '/realms/shop');
    expect(shown.json().clients[0]).toMatchObject({ client_id: 'shop-web' });
    expect(shown.body).not.toContain(JSON.parse(realmJson).clients[0].client_secret);
    expect(shown.body).not.toContain('carol-password');
    expect((await admin('DELETE', '/realms/shop/clients/shop-web')).statusCode).toBe(204);
    expect((await admin('GET', '/realms/shop/clients/shop-web')).statusCode).toBe(404);
  });
});
