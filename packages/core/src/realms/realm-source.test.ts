import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/issues.js';
import { type RealmInput, realmSchema } from '../config/realm.js';
import {
  loaderRealmSource,
  parsedRealm,
  type RealmLoader,
  staticRealmSource,
  validateRealm,
} from './realm-source.js';

const BASE_URL = 'https://id.example.com/base';
const demo = (overrides: Partial<RealmInput> = {}): RealmInput => ({ name: 'demo', ...overrides });

/** A loader over a mutable table that counts its calls. */
function tableLoader(table: Record<string, RealmInput | undefined>) {
  const calls: string[] = [];
  const load: RealmLoader = async (name) => {
    calls.push(name);
    return table[name];
  };
  return { load, calls };
}

describe('staticRealmSource', () => {
  it('finds realms by name and builds the issuer from the base URL', async () => {
    const source = staticRealmSource([demo(), demo({ name: 'other' })], BASE_URL);
    const realm = await source.get('demo');
    expect(realm?.issuer).toBe('https://id.example.com/base/oauth/demo');
    expect(realm?.url('token')).toBe('https://id.example.com/base/oauth/demo/token');
    expect((await source.get('other'))?.name).toBe('other');
    expect(await source.get('missing')).toBeUndefined();
  });

  it('returns the same realm object on every lookup', async () => {
    const source = staticRealmSource([demo()], BASE_URL);
    expect(await source.get('demo')).toBe(await source.get('demo'));
  });

  it('reports a duplicate realm name at the later realm', () => {
    expect(() => staticRealmSource([demo(), demo({ name: 'x' }), demo()], BASE_URL)).toThrow(
      expect.objectContaining({
        issues: [{ path: 'realms[2].name', message: 'duplicate realm "demo"' }],
      }),
    );
  });

  it('rethrows what is not a configuration problem', () => {
    const exploding = {
      get name(): string {
        throw new RangeError('getter failed');
      },
    };
    expect(() => staticRealmSource([exploding], BASE_URL)).toThrow(RangeError);
  });
});

describe('loaderRealmSource', () => {
  it('accepts synchronous and asynchronous loaders', async () => {
    const input = demo();
    expect((await loaderRealmSource(() => input, BASE_URL).get('demo'))?.name).toBe('demo');
    expect((await loaderRealmSource(async () => input, BASE_URL).get('demo'))?.name).toBe('demo');
  });

  it('answers undefined when the loader knows no such realm', async () => {
    const { load } = tableLoader({});
    expect(await loaderRealmSource(load, BASE_URL).get('demo')).toBeUndefined();
  });

  it.each(['..', 'de%6Do', 'a b', '', 'x'.repeat(65)])(
    'never calls the loader with %j, which no realm can be named',
    async (name) => {
      const { load, calls } = tableLoader({ [name]: demo() });
      expect(await loaderRealmSource(load, BASE_URL).get(name)).toBeUndefined();
      expect(calls).toEqual([]);
    },
  );

  it('answers undefined when the loader returns a realm of another name', async () => {
    const { load } = tableLoader({ alias: demo() });
    expect(await loaderRealmSource(load, BASE_URL).get('alias')).toBeUndefined();
  });

  it('asks the loader on every lookup but builds a returned object only once', async () => {
    const table = { demo: demo({ access_token_ttl: 300 }) };
    const { load, calls } = tableLoader(table);
    const source = loaderRealmSource(load, BASE_URL);

    const first = await source.get('demo');
    expect(await source.get('demo')).toBe(first);
    expect(calls).toEqual(['demo', 'demo']);
    expect(first?.config.access_token_ttl).toBe(300);
  });

  it('revalidates and rebuilds when the loader returns a new object', async () => {
    const table: Record<string, RealmInput> = { demo: demo({ access_token_ttl: 300 }) };
    const { load } = tableLoader(table);
    const source = loaderRealmSource(load, BASE_URL);
    const first = await source.get('demo');

    table.demo = demo({ access_token_ttl: 120 });
    const second = await source.get('demo');
    expect(second).not.toBe(first);
    expect(second?.config.access_token_ttl).toBe(120);

    table.demo = demo({ access_token_ttl: 0 });
    await expect(source.get('demo')).rejects.toThrow(ConfigError);
  });

  it('rejects invalid loader output with every issue under the realm name', async () => {
    const invalid = {
      name: 'demo',
      scopes: ['openid', 'openid'],
      signing_alg: 'none',
    } as unknown as RealmInput;
    const source = loaderRealmSource(() => invalid, BASE_URL);
    const error = await source.get('demo').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([
      { path: 'realm "demo".signing_alg', message: expect.stringContaining('Invalid option') },
    ]);

    const crossField = loaderRealmSource(() => demo({ scopes: ['openid', 'openid'] }), BASE_URL);
    await expect(crossField.get('demo')).rejects.toThrow('realm "demo".scopes[1]: is a duplicate');
  });

  it('does not cache a realm that failed validation', async () => {
    const input = { name: 'demo', scopes: 'openid' } as unknown as RealmInput;
    const { load, calls } = tableLoader({ demo: input });
    const source = loaderRealmSource(load, BASE_URL);
    await expect(source.get('demo')).rejects.toThrow(ConfigError);
    (input as { scopes: unknown }).scopes = ['openid'];
    // The same object, now fixed, is validated again rather than remembered as broken.
    expect((await source.get('demo'))?.config.scopes).toEqual(['openid']);
    expect(calls).toHaveLength(2);
  });
});

describe('parsedRealm', () => {
  it('is taken as it is, shape unchecked, where an unmarked realm is parsed into a new object', () => {
    const parsed = realmSchema.parse(demo());
    expect(validateRealm(parsed)).not.toBe(parsed);
    const marked = parsedRealm(realmSchema.parse(demo()));
    expect(validateRealm(marked)).toBe(marked);
  });

  it('still meets the cross-field rules of core and of the provider, under its path', async () => {
    const duplicate = parsedRealm(realmSchema.parse(demo({ scopes: ['openid', 'openid'] })));
    await expect(loaderRealmSource(() => duplicate, BASE_URL).get('demo')).rejects.toThrow(
      'realm "demo".scopes[1]: is a duplicate',
    );
    const refused = () => [{ path: 'ciba', message: 'refused by the provider' }];
    expect(() =>
      validateRealm(parsedRealm(realmSchema.parse(demo())), 'realms[0]', refused),
    ).toThrow(
      expect.objectContaining({
        issues: [{ path: 'realms[0].ciba', message: 'refused by the provider' }],
      }),
    );
  });
});
