import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, configDir, killAllCli, validConfig, withChanges } from '../server/support.js';
import { basicAuthorization, FORM_HEADERS, form, SECRETS } from '../support/fixtures.js';
import { type StoreUnderTest, storesUnderTest } from '../support/store-backends.js';
import { type Instance, startInstances } from './instances.js';

/**
 * Two `gatehouse serve` processes sharing one store: a realm or client written through the
 * admin API of one is in force at the other within the 5 seconds the contract allows, and the
 * tokens a deletion or a secret rotation revokes stop working at the other at once.
 */

const BASE_URL = 'https://idp.admin-realms.test';
const PROMISED_MS = 5000;
const ADMIN = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };

const dir = configDir();
afterAll(() => {
  killAllCli();
  dir.remove();
});

/** The demo realm of validConfig() under another name. */
const shopRealm = () => ({ ...(validConfig().realms[0] as Record<string, unknown>), name: 'shop' });

/** Polls `check` until it holds; resolves with how long that took, or rejects after `PROMISED_MS`. */
async function inForceWithin(check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > PROMISED_MS) throw new Error(`not in force after ${PROMISED_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return Date.now() - started;
}

const discoveryStatus = async (instance: Instance, realm: string) =>
  (await instance.fetch(`/oauth/${realm}/.well-known/openid-configuration`)).status;

/** `service`'s client_credentials request to the realm: its status and token. */
async function serviceToken(instance: Instance, secret: string = SECRETS.post, realm = 'shop') {
  const response = await instance.fetch(`/oauth/${realm}/token`, {
    method: 'POST',
    headers: FORM_HEADERS,
    body: form({
      grant_type: 'client_credentials',
      client_id: 'service',
      client_secret: secret,
      resource: 'https://api.example.com',
    }),
  });
  const body = (await response.json()) as { access_token: string };
  return { status: response.status, token: body.access_token };
}

async function machineToken(instance: Instance, realm = 'shop'): Promise<string> {
  const { status, token } = await serviceToken(instance, SECRETS.post, realm);
  expect(status).toBe(200);
  return token;
}

async function introspection(
  instance: Instance,
  token: string,
  realm = 'shop',
): Promise<{ active: boolean }> {
  const response = await instance.fetch(`/oauth/${realm}/introspect`, {
    method: 'POST',
    headers: { ...FORM_HEADERS, authorization: basicAuthorization('api', SECRETS.api) },
    body: form({ token }),
  });
  return (await response.json()) as { active: boolean };
}

describe.each(await storesUnderTest('admin'))('two instances sharing one $name', ({ store }) => {
  describe.skipIf(!store)('and the admin API', () => {
    const backend = store as StoreUnderTest;
    let a: Instance;
    let b: Instance;

    beforeAll(async () => {
      const file = dir.write(
        `${backend.name}.json`,
        withChanges(validConfig(), {
          base_url: BASE_URL,
          // Shared: the key client secrets are encrypted with in the store.
          cookie_secret: 'admin-realms-cookie-secret-0123456789',
          ...backend.settings(),
        }),
      );
      [a, b] = (await startInstances(file, BASE_URL, ['A', 'B'])) as [Instance, Instance];
    }, 60_000);

    afterAll(async () => {
      killAllCli();
      await backend.cleanUp();
    });

    it('serve at B the realm PUT at A, and stop the tokens of a client deleted at A', async () => {
      expect(await discoveryStatus(b, 'shop')).toBe(404);
      const put = await a.fetch('/admin/realms/shop', {
        method: 'PUT',
        headers: ADMIN,
        body: JSON.stringify(shopRealm()),
      });
      expect(put.status, await put.text()).toBe(201);
      expect(await discoveryStatus(a, 'shop')).toBe(200);
      await inForceWithin(async () => (await discoveryStatus(b, 'shop')) === 200);
      const listed = await b.fetch('/admin/realms', { headers: ADMIN });
      expect(await listed.json()).toEqual({ realms: ['demo', 'shop'] });

      // B opens the client secret A encrypted.
      const token = await machineToken(b);
      expect(await introspection(b, token)).toMatchObject({ active: true });
      const deleted = await a.fetch('/admin/realms/shop/clients/service', {
        method: 'DELETE',
        headers: ADMIN,
      });
      expect(deleted.status).toBe(204);
      // At once at B too: the deletion revoked the client's tokens in the store.
      expect(await introspection(a, token)).toEqual({ active: false });
      expect(await introspection(b, token)).toEqual({ active: false });

      expect(
        (await a.fetch('/admin/realms/shop', { method: 'DELETE', headers: ADMIN })).status,
      ).toBe(204);
      await inForceWithin(async () => (await discoveryStatus(b, 'shop')) === 404);
    });

    it('rotate a secret at A: at B the new one works within 5 s, the old one meanwhile, and revoke_tokens stops the tokens at once', async () => {
      const vault = { ...shopRealm(), name: 'vault' };
      const put = await a.fetch('/admin/realms/vault', {
        method: 'PUT',
        headers: ADMIN,
        body: JSON.stringify(vault),
      });
      expect(put.status).toBe(201);
      await inForceWithin(async () => (await discoveryStatus(b, 'vault')) === 200);
      const token = await machineToken(b, 'vault');

      const kept = await a.fetch('/admin/realms/vault/clients/service/secret', {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify({ overlap_seconds: 60 }),
      });
      const { client_secret: secret } = (await kept.json()) as { client_secret: string };
      expect(kept.status).toBe(200);
      expect((await serviceToken(b, SECRETS.post, 'vault')).status).toBe(200);
      await inForceWithin(async () => (await serviceToken(b, secret, 'vault')).status === 200);
      expect(await introspection(b, token, 'vault')).toMatchObject({ active: true });

      const revoked = await b.fetch('/admin/realms/vault/clients/service/secret', {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify({ overlap_seconds: 0, revoke_tokens: true }),
      });
      expect(revoked.status).toBe(200);
      for (const instance of [a, b]) {
        expect(await introspection(instance, token, 'vault')).toEqual({ active: false });
      }
    });
  });
});
