import { ConfigError, MemoryStore, validateRealm } from '@gatehouse-oidc/core';
import { describe, expect, it, vi } from 'vitest';
import { serverRealmSchema } from '../config/server-config.js';
import { ApiRealms } from './api-realms.js';
import { RealmCatalog } from './realm-catalog.js';
import { SecretBox } from './secret-box.js';

const COOKIE_SECRET = 'catalog-cookie-secret-0123456789';

const realm = (name: string) => ({
  name,
  scopes: ['api:read'],
  clients: [
    {
      client_id: 'service',
      client_secret: `${name}-secret-0123456789abcdef`,
      grant_types: ['client_credentials'],
      scope: 'api:read',
    },
  ],
});

/** A catalog over a memory store holding the API realms `apiNames`, beside file realms. */
async function catalogOf(
  apiNames: readonly string[],
  {
    fileNames = [],
    maxRealms,
    now = () => 0,
  }: { fileNames?: readonly string[]; maxRealms?: number; now?: () => number } = {},
) {
  const store = new MemoryStore();
  const apiRealms = new ApiRealms(store, new SecretBox(COOKIE_SECRET));
  for (const name of apiNames) await apiRealms.write(name, undefined, realm(name));
  const catalog = new RealmCatalog({
    fileRealms: fileNames.map((name) => serverRealmSchema.parse(realm(name))),
    apiRealms,
    now,
    warn: () => {},
    ...(maxRealms === undefined ? {} : { maxRealms }),
  });
  return { catalog, apiRealms, store };
}

describe('RealmCatalog', () => {
  it('keeps at most maxRealms realms of the API, reading a forgotten one back from the store', async () => {
    const { catalog, apiRealms } = await catalogOf(['a', 'b', 'c'], { maxRealms: 2 });
    const first = await catalog.find('a');
    await catalog.find('b');
    await catalog.find('c');
    expect(catalog.known('a')).toBeUndefined();
    expect(catalog.known('c')?.name).toBe('c');

    const reads = vi.spyOn(apiRealms, 'read');
    const again = await catalog.find('a');
    expect(reads.mock.calls).toEqual([['a']]);
    expect(again?.config).toEqual(first?.config);
    await catalog.find('a');
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('asks the store once per cacheMs whether any realm changed, and reads a realm again only after a change', async () => {
    let now = 0;
    const { catalog, apiRealms, store } = await catalogOf(['a', 'b', 'c'], { now: () => now });
    for (const name of ['a', 'b', 'c']) await catalog.find(name);
    const reads = vi.spyOn(apiRealms, 'read');
    const generations = vi.spyOn(apiRealms, 'generation');
    now += 10_000;
    for (const name of ['a', 'b', 'c', 'a', 'b', 'c']) await catalog.find(name);
    expect(reads).not.toHaveBeenCalled();
    expect(generations).toHaveBeenCalledTimes(1);

    // Another instance sharing the store changes b.
    const other = new ApiRealms(store, new SecretBox(COOKIE_SECRET));
    const revision = (await other.read('b'))?.revision;
    await other.write('b', revision, { ...realm('b'), scopes: ['api:read', 'api:write'] });
    expect((await catalog.find('b'))?.config.scopes).toEqual(['api:read']);
    now += 2_000;
    expect((await catalog.find('b'))?.config.scopes).toEqual(['api:read', 'api:write']);
    expect(reads.mock.calls).toEqual([['b']]);
  });

  it('reads a kept realm again after a minute, though no change was announced', async () => {
    let now = 0;
    const { catalog, apiRealms } = await catalogOf(['a'], { now: () => now });
    await catalog.find('a');
    const reads = vi.spyOn(apiRealms, 'read');
    now += 59_000;
    await catalog.find('a');
    expect(reads).not.toHaveBeenCalled();
    now += 2_000;
    await catalog.find('a');
    expect(reads.mock.calls).toEqual([['a']]);
  });

  it('parses a realm read from the store once, and leaves its cross-field rules to the provider', async () => {
    const { catalog, apiRealms } = await catalogOf([]);
    // Written to the store behind the editor's back: an older version, or tampering.
    await apiRealms.write('shape', undefined, { ...realm('shape'), access_token_ttl: 'forever' });
    await expect(catalog.find('shape')).rejects.toThrow('access_token_ttl');

    await apiRealms.write('rules', undefined, {
      ...realm('rules'),
      scopes: ['api:read', 'api:read'],
    });
    const found = await catalog.find('rules');
    expect(() => validateRealm(found?.input, 'rules')).toThrow(ConfigError);
    expect(() => validateRealm(found?.input, 'rules')).toThrow('rules.scopes[1]: is a duplicate');
    // The shape is not parsed a second time: the provider builds the very object the catalog made.
    const valid = await catalogOf(['ok']);
    const input = (await valid.catalog.find('ok'))?.input;
    expect(validateRealm(input)).toBe(input);
  });

  it('pages the realm names in the order of the full list: the file’s, then the API’s sorted', async () => {
    const { catalog } = await catalogOf(['delta', 'bravo', 'echo', 'charlie'], {
      fileNames: ['zulu', 'alpha'],
    });
    expect(await catalog.names()).toEqual(['zulu', 'alpha', 'bravo', 'charlie', 'delta', 'echo']);
    expect(await catalog.page(3)).toEqual({ names: ['zulu', 'alpha', 'bravo'], more: true });
    expect(await catalog.page(2, 'zulu')).toEqual({ names: ['alpha', 'bravo'], more: true });
    expect(await catalog.page(2, 'bravo')).toEqual({ names: ['charlie', 'delta'], more: true });
    expect(await catalog.page(2, 'delta')).toEqual({ names: ['echo'], more: false });
  });

  it('lists the realms of the API once for all the pages, and again after a change', async () => {
    let now = 0;
    const { catalog, apiRealms, store } = await catalogOf(['a', 'b', 'c', 'd'], {
      now: () => now,
    });
    const listings = vi.spyOn(apiRealms, 'names');
    expect(await catalog.page(2)).toEqual({ names: ['a', 'b'], more: true });
    expect(await catalog.page(2, 'b')).toEqual({ names: ['c', 'd'], more: false });
    expect(listings).toHaveBeenCalledTimes(1);

    // A realm written through this instance is listed at once.
    await apiRealms.write('e', undefined, realm('e'));
    catalog.forget('e');
    expect(await catalog.page(10, 'd')).toEqual({ names: ['e'], more: false });
    // One written through another instance, once the change is seen.
    await new ApiRealms(store, new SecretBox(COOKIE_SECRET)).write('f', undefined, realm('f'));
    now += 2_000;
    expect(await catalog.page(10, 'd')).toEqual({ names: ['e', 'f'], more: false });
    expect(listings).toHaveBeenCalledTimes(3);
  });

  it('continues after a realm of the API deleted since the previous page', async () => {
    const { catalog, apiRealms } = await catalogOf(['bravo', 'charlie', 'delta']);
    await apiRealms.delete('charlie');
    expect(await catalog.page(10, 'charlie')).toEqual({ names: ['delta'], more: false });
    expect(await catalog.page(10, 'echo')).toEqual({ names: [], more: false });
  });
});
