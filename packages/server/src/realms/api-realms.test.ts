import { MemoryStore } from '@gatehouse-oidc/core';
import { describe, expect, it, vi } from 'vitest';
import { ApiRealms } from './api-realms.js';
import { RealmSecretsUnreadable } from './realm-secrets-unreadable.js';
import { SecretBox } from './secret-box.js';

const SECRET = 'shop-web-secret-0123456789abcdef';
const REALM = {
  name: 'shop',
  scopes: ['openid'],
  clients: [
    { client_id: 'web', client_secret: SECRET, redirect_uris: ['https://a.example/cb'] },
    { client_id: 'mobile', token_endpoint_auth_method: 'none', redirect_uris: ['app:/cb'] },
  ],
};

/** `shop` written under one cookie_secret, and the realms as read with `readerSecret`. */
async function writtenThenRead(readerSecret: string | undefined) {
  const store = new MemoryStore();
  const writer = new ApiRealms(store, new SecretBox('writer-cookie-secret-0123456789abcdef'));
  await writer.write('shop', undefined, REALM);
  const reader = new ApiRealms(store, new SecretBox(readerSecret));
  const stored = (await reader.read('shop'))?.value;
  if (!stored) throw new Error('shop was not written');
  return { writer, reader, stored };
}

describe('ApiRealms with another key than the one a realm was written with', () => {
  it('throws RealmSecretsUnreadable naming the realm and the clients with a secret, no secret', async () => {
    const { reader, stored } = await writtenThenRead('reader-cookie-secret-0123456789abcdef');
    const error = (() => {
      try {
        reader.open('shop', stored);
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(RealmSecretsUnreadable);
    const { realm, clientIds, message } = error as RealmSecretsUnreadable;
    expect([realm, clientIds]).toEqual(['shop', ['web']]);
    expect(message).toContain('cookie_secret differs from the one the realm was written with');
    expect(message).toContain('PUT /admin/realms/shop');
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain(stored.secrets.web);
  });

  it('says when the config sets no cookie_secret', async () => {
    const { reader, stored } = await writtenThenRead(undefined);
    expect(() => reader.open('shop', stored)).toThrow(
      'Likely cause: the config sets no cookie_secret, while the realm was written with one.',
    );
  });

  it('lists it among the unreadable realms, and still shows it without its secrets', async () => {
    const { writer, reader, stored } = await writtenThenRead(
      'reader-cookie-secret-0123456789abcdef',
    );
    expect(await writer.unreadable()).toEqual([]);
    expect(
      (await reader.unreadable()).map(({ realm, clientIds }) => ({ realm, clientIds })),
    ).toEqual([{ realm: 'shop', clientIds: ['web'] }]);
    expect(reader.withoutSecrets(stored).clients.map((client) => client.client_id)).toEqual([
      'web',
      'mobile',
    ]);
  });
});

describe('ApiRealms and the initial access token of a realm with registration', () => {
  const TOKEN = 'initial-access-token-of-shop-0123456789';
  const WITH_REGISTRATION = { ...REALM, registration: { initial_access_token: TOKEN } };
  const box = () => new SecretBox('writer-cookie-secret-0123456789abcdef');

  it('keeps it sealed apart in the store, and opens it for the server', async () => {
    const store = new MemoryStore();
    const realms = new ApiRealms(store, box());
    await realms.write('shop', undefined, WITH_REGISTRATION);
    const stored = (await realms.read('shop'))?.value;
    if (!stored) throw new Error('shop was not written');
    expect(JSON.stringify(stored)).not.toContain(TOKEN);
    expect(stored.realm.registration).toEqual({});
    expect(stored.initial_access_token).toMatch(/^v1\./);
    expect(realms.decode('shop', stored).registration?.initial_access_token).toBe(TOKEN);
    expect(realms.withoutSecrets(stored).registration?.initial_access_token).toBeUndefined();
  });

  it('does not open for another realm, nor with another key, and says so without it', async () => {
    const store = new MemoryStore();
    const writer = new ApiRealms(store, box());
    await writer.write('shop', undefined, { ...WITH_REGISTRATION, clients: [] });
    const stored = (await writer.read('shop'))?.value;
    if (!stored) throw new Error('shop was not written');
    expect(() => writer.open('other', stored)).toThrow(RealmSecretsUnreadable);
    const reader = new ApiRealms(store, new SecretBox('reader-cookie-secret-0123456789abcdef'));
    const error = (() => {
      try {
        reader.open('shop', stored);
      } catch (thrown) {
        return thrown as RealmSecretsUnreadable;
      }
    })();
    expect(error?.initialAccessToken).toBe(true);
    expect(error?.message).toContain(
      'realm "shop" cannot be served: its registration\'s initial access token does not open',
    );
    expect(error?.message).not.toContain(TOKEN);
  });

  it('is found among the unreadable realms when it is the realm’s only sealed value', async () => {
    const store = new MemoryStore();
    await new ApiRealms(store, box()).write('shop', undefined, {
      ...WITH_REGISTRATION,
      clients: [],
    });
    const reader = new ApiRealms(store, new SecretBox('reader-cookie-secret-0123456789abcdef'));
    const [problem] = await reader.unreadable();
    expect(problem?.initialAccessToken).toBe(true);
    expect(await new ApiRealms(store, box()).unreadable()).toEqual([]);
  });
});

describe('ApiRealms.unreadable, realm by realm', () => {
  const WRITER_SECRET = 'writer-cookie-secret-0123456789abcdef';
  const TWO_SECRETS = {
    ...REALM,
    clients: [
      {
        ...REALM.clients[0],
        previous_client_secret: 'shop-web-old-secret-0123456789abcdef',
        previous_client_secret_expires_at: 4_102_444_800,
      },
      { client_id: 'admin', client_secret: 'shop-admin-secret-0123456789abcdef' },
    ],
  };

  it('opens one sealed value of a readable realm, and every one of an unreadable realm', async () => {
    const store = new MemoryStore();
    await new ApiRealms(store, new SecretBox(WRITER_SECRET)).write('shop', undefined, TWO_SECRETS);
    const box = new SecretBox(WRITER_SECRET);
    const opens = vi.spyOn(box, 'open');
    expect(await new ApiRealms(store, box).unreadable()).toEqual([]);
    expect(opens).toHaveBeenCalledTimes(1);
    const other = new ApiRealms(store, new SecretBox('reader-cookie-secret-0123456789abcdef'));
    expect((await other.unreadable()).map((problem) => problem.clientIds)).toEqual([
      ['web', 'admin'],
    ]);
  });
});

describe('ApiRealms.unreadable over many realms', () => {
  it('finds every unreadable realm while reading one at a time', async () => {
    const store = new MemoryStore();
    const mine = new ApiRealms(store, new SecretBox('mine-cookie-secret-0123456789abcdef'));
    const theirs = new ApiRealms(store, new SecretBox('their-cookie-secret-0123456789abcdef'));
    for (let index = 0; index < 50; index++) {
      const name = `tenant-${index}`;
      await (index % 20 === 7 ? theirs : mine).write(name, undefined, { ...REALM, name });
    }
    let reading = 0;
    let most = 0;
    const read = mine.read.bind(mine);
    vi.spyOn(mine, 'read').mockImplementation(async (name) => {
      most = Math.max(most, ++reading);
      await new Promise((resolve) => setTimeout(resolve, 1));
      reading--;
      return read(name);
    });
    const problems = await mine.unreadable();
    expect(problems.map((problem) => problem.realm).sort()).toEqual([
      'tenant-27',
      'tenant-47',
      'tenant-7',
    ]);
    expect(most).toBe(1);
  });
});
