import { describe, expect, it, vi } from 'vitest';
import type { RealmInput } from '../config/realm.js';
import { jwkThumbprint } from '../dpop/thumbprint.js';
import { buildRealm, type Realm } from '../realms/realm.js';
import { validateRealm } from '../realms/realm-source.js';
import { MemoryStore } from '../store/memory-store.js';
import { fakeClock } from '../testing/clock.js';
import { webCryptoKeyPair } from './generate.js';
import type { KeyPairJwks } from './signing-key.js';
import { StoreKeyStore } from './store-key-store.js';

/** Must match StoreKeyStore: retired keys stay published this long past the realm's longest lifetime. */
const CLOCK_SKEW_SECONDS = 60;
const REFRESH_SECONDS = 30;
/** A back-channel logout token's lifetime. */
const LOGOUT_TOKEN_SECONDS = 120;

function keyRealm(overrides: Partial<RealmInput> = {}): Realm {
  return buildRealm(validateRealm({ name: 'keys', ...overrides }), 'https://id.example.com');
}

function setup() {
  const clock = fakeClock();
  const store = new MemoryStore({ now: clock.now });
  const keyStore = (s = store) => new StoreKeyStore(s, { now: clock.now });
  return { clock, store, keyStore };
}

/**
 * The ids of the store's key reads, grouped by round trip: each read takes a turn of the event
 * loop, and reads asked for before it ends travel together.
 */
function readsAtOnce(store: MemoryStore): { calls: string[][] } {
  const calls: string[][] = [];
  let open: string[] | undefined;
  const get = store.get.bind(store);
  vi.spyOn(store, 'get').mockImplementation(async (namespace, id) => {
    if (!open) {
      const trip: string[] = [];
      open = trip;
      calls.push(trip);
      setTimeout(() => {
        if (open === trip) open = undefined;
      });
    }
    open.push(id);
    await new Promise((resolve) => setTimeout(resolve));
    return get(namespace, id);
  });
  return { calls };
}

type Published = readonly { kid?: string; alg?: string }[];
const kids = (jwks: Published) => jwks.map((jwk) => jwk.kid);
/** The kids of the keys of `alg`: a realm's RS256 key beside its ES256 key rotates with it. */
const kidsOf = (jwks: Published, alg = 'ES256') => kids(jwks.filter((jwk) => jwk.alg === alg));

describe('StoreKeyStore', () => {
  const realm = keyRealm();
  // 3600 s (id_token_ttl) is the longest thing the default realm signs.
  const retention = realm.longestSignedLifetime + CLOCK_SKEW_SECONDS;

  it('generates one key on first use, persists it, and keeps using it', async () => {
    const { store, keyStore } = setup();
    const keys = keyStore();
    const first = await keys.currentKey(realm);

    expect(first.alg).toBe('ES256');
    expect(await store.get('signing_key', 'keys/1')).toEqual(first);
    expect(await store.get('signing_key', 'keys/2')).toBeUndefined();
    expect((await keys.currentKey(realm)).kid).toBe(first.kid);
    expect((await keyStore().currentKey(realm)).kid).toBe(first.kid);
  });

  it('makes its keys with the key pair maker it is given, named by their thumbprint', async () => {
    const { clock, store } = setup();
    const made: KeyPairJwks[] = [];
    const keys = new StoreKeyStore(store, {
      now: clock.now,
      generateKeyPair: async (alg) => {
        const pair = await webCryptoKeyPair(alg);
        made.push(pair);
        return pair;
      },
    });
    const key = await keys.currentKey(realm);

    expect(made).toHaveLength(1);
    expect(key.privateJwk).toMatchObject({ ...made[0]?.privateJwk, kid: key.kid, alg: 'ES256' });
    expect(key.publicJwk).toEqual({
      ...made[0]?.publicJwk,
      kid: key.kid,
      alg: 'ES256',
      use: 'sig',
    });
    expect(key.kid).toBe(jwkThumbprint(made[0]?.publicJwk ?? {}));
  });

  it('generates one key however many requests ask at once', async () => {
    const { store, keyStore } = setup();
    const keys = keyStore();
    const results = await Promise.all(Array.from({ length: 20 }, () => keys.currentKey(realm)));
    expect(new Set(results.map((key) => key.kid)).size).toBe(1);
    expect(await store.get('signing_key', 'keys/2')).toBeUndefined();
  });

  it('lets instances sharing a store converge on one key when they race for the first', async () => {
    const { store, keyStore } = setup();
    const instances = [keyStore(), keyStore(), keyStore()];
    const results = await Promise.all(
      instances.flatMap((keys) => [keys.currentKey(realm), keys.currentKey(realm)]),
    );
    expect(new Set(results.map((key) => key.kid)).size).toBe(1);
    expect(await store.get('signing_key', 'keys/2')).toBeUndefined();
    for (const keys of instances)
      expect(kids(await keys.publicKeys(realm))).toEqual([results[0]?.kid]);
  });

  it('keys realms apart', async () => {
    const { keyStore } = setup();
    const keys = keyStore();
    const [a, b] = await Promise.all([
      keys.currentKey(realm),
      keys.currentKey(keyRealm({ name: 'other' })),
    ]);
    expect(a.kid).not.toBe(b.kid);
    expect(kids(await keys.publicKeys(realm))).toEqual([a.kid]);
  });

  it('signs with the new key after rotation and publishes the old one until its tokens expired', async () => {
    const { clock, keyStore } = setup();
    const keys = keyStore();
    const old = await keys.currentKey(realm);
    clock.advance(3600);
    const rotated = await keys.rotate(realm);

    expect(rotated.kid).not.toBe(old.kid);
    expect((await keys.currentKey(realm)).kid).toBe(rotated.kid);
    expect(kidsOf(await keys.publicKeys(realm))).toEqual([old.kid, rotated.kid]);
    clock.advance(retention - 1);
    expect(kidsOf(await keys.publicKeys(realm))).toEqual([old.kid, rotated.kid]);
    clock.advance(1);
    expect(kidsOf(await keys.publicKeys(realm))).toEqual([rotated.kid]);
  });

  it('keeps the retention of a realm with longer-lived tokens', async () => {
    const { clock, keyStore } = setup();
    const longLived = keyRealm({ access_token_ttl: 86_400 });
    const keys = keyStore();
    const old = await keys.currentKey(longLived);
    await keys.rotate(longLived);
    clock.advance(retention);
    expect(kids(await keys.publicKeys(longLived))).toContain(old.kid);
    clock.advance(86_400 - 3600);
    expect(kids(await keys.publicKeys(longLived))).not.toContain(old.kid);
  });

  it('keeps a retired key published while a logout token it signed lives, in a realm of shorter tokens', async () => {
    const { clock, keyStore } = setup();
    const shortLived = keyRealm({ access_token_ttl: 30, id_token_ttl: 30 });
    const keys = keyStore();
    const old = await keys.currentKey(shortLived);
    await keys.rotate(shortLived);
    clock.advance(LOGOUT_TOKEN_SECONDS + CLOCK_SKEW_SECONDS - 1);
    expect(kids(await keys.publicKeys(shortLived))).toContain(old.kid);
    clock.advance(1);
    expect(kids(await keys.publicKeys(shortLived))).not.toContain(old.kid);
  });

  it('shows a rotation by one instance to the others', async () => {
    const { clock, keyStore } = setup();
    const [a, b] = [keyStore(), keyStore()];
    const old = await a.currentKey(realm);
    expect((await b.currentKey(realm)).kid).toBe(old.kid);

    const rotated = await a.rotate(realm);
    // A cached list is served until it is stale; a fresh read (the JWKS endpoint) sees the new key.
    expect(kidsOf(await b.publicKeys(realm))).toEqual([old.kid]);
    expect(kidsOf(await b.publicKeys(realm, { fresh: true }))).toEqual([old.kid, rotated.kid]);
    clock.advance(REFRESH_SECONDS + 1);
    expect((await b.currentKey(realm)).kid).toBe(rotated.kid);
  });

  describe('with key_rotation_seconds', () => {
    const period = 86_400;
    const scheduled = keyRealm({ key_rotation_seconds: period });

    it('rotates once per period, counted from the current key’s creation, however many instances sign', async () => {
      const { clock, store, keyStore } = setup();
      const [a, b] = [keyStore(), keyStore()];
      const first = await a.currentKey(scheduled);
      clock.advance(period - 1);
      expect((await b.currentKey(scheduled)).kid).toBe(first.kid);

      clock.advance(1);
      const signing = await Promise.all(
        [a, b, keyStore()].flatMap((keys) => [
          keys.currentKey(scheduled),
          keys.currentKey(scheduled),
        ]),
      );
      const [second] = signing;
      expect(second?.kid).not.toBe(first.kid);
      expect(new Set(signing.map((key) => key.kid))).toEqual(new Set([second?.kid]));
      expect(await store.get('signing_key', 'keys/3')).toBeUndefined();

      // B's list, read before the rotation, shows its key due: it finds A's instead of adding one.
      clock.advance(period - 1);
      expect((await a.currentKey(scheduled)).kid).toBe(second?.kid);
      clock.advance(1);
      const third = await a.currentKey(scheduled);
      clock.advance(5);
      expect((await b.currentKey(scheduled)).kid).toBe(third.kid);
      expect(third.kid).not.toBe(second?.kid);
      expect(await store.get('signing_key', 'keys/4')).toBeUndefined();
    });

    it('keeps the retired key published until the tokens it signed have expired', async () => {
      const { clock, keyStore } = setup();
      const keys = keyStore();
      const retired = await keys.currentKey(scheduled);
      clock.advance(period);
      const current = await keys.currentKey(scheduled);
      expect(kidsOf(await keys.publicKeys(scheduled))).toEqual([retired.kid, current.kid]);
      clock.advance(retention - 1);
      expect(kidsOf(await keys.publicKeys(scheduled))).toEqual([retired.kid, current.kid]);
      clock.advance(1);
      expect(kidsOf(await keys.publicKeys(scheduled))).toEqual([current.kid]);
    });

    it('counts the period from a rotation on request', async () => {
      const { clock, keyStore } = setup();
      const keys = keyStore();
      await keys.currentKey(scheduled);
      clock.advance(period / 2);
      const rotated = await keys.rotate(scheduled);
      clock.advance(period - 1);
      expect((await keys.currentKey(scheduled)).kid).toBe(rotated.kid);
      clock.advance(1);
      expect((await keys.currentKey(scheduled)).kid).not.toBe(rotated.kid);
    });
  });

  describe('after the store lost its keys (a restart without persistence, a lossy failover)', () => {
    /** Deletes the realm's key records, as the store's loss does. */
    async function loseKeys(store: MemoryStore) {
      for (let position = 1; await store.delete('signing_key', `keys/${position}`); position++);
    }

    it('lets running instances and a new one agree on one key within the refresh interval', async () => {
      const { clock, store, keyStore } = setup();
      const [a, b] = [keyStore(), keyStore()];
      const lost = await a.currentKey(realm);
      expect((await b.currentKey(realm)).kid).toBe(lost.kid);
      await loseKeys(store);

      const made = await keyStore().currentKey(realm);
      expect(made.kid).not.toBe(lost.kid);
      clock.advance(REFRESH_SECONDS + 1);
      for (const keys of [a, b]) {
        expect((await keys.currentKey(realm)).kid).toBe(made.kid);
        expect(kidsOf(await keys.publicKeys(realm))).toEqual([made.kid]);
      }
    });

    it('stops signing with a lost key at its next refresh, though no other instance made one', async () => {
      const { clock, store, keyStore } = setup();
      const keys = keyStore();
      const lost = await keys.currentKey(realm);
      await loseKeys(store);
      clock.advance(REFRESH_SECONDS + 1);
      const made = await keys.currentKey(realm);
      expect(made.kid).not.toBe(lost.kid);
      expect(await store.get('signing_key', 'keys/1')).toEqual(made);
      expect((await keyStore().currentKey(realm)).kid).toBe(made.kid);
    });

    it('stops publishing a lost key at the next fresh read', async () => {
      const { store, keyStore } = setup();
      const keys = keyStore();
      const lost = await keys.currentKey(realm);
      await loseKeys(store);
      const published = await keys.publicKeys(realm, { fresh: true });
      expect(kids(published)).not.toContain(lost.kid);
      expect(kidsOf(published)).toEqual([(await keys.currentKey(realm)).kid]);
    });

    it('goes back to the newest key the store still holds when it lost only the latest', async () => {
      const { clock, store, keyStore } = setup();
      const keys = keyStore();
      const kept = await keys.currentKey(realm);
      const rotated = await keys.rotate(realm);
      const positions = [2, 3].map((position) => `keys/${position}`);
      for (const id of positions) await store.delete('signing_key', id);
      clock.advance(REFRESH_SECONDS + 1);
      expect((await keys.currentKey(realm)).kid).toBe(kept.kid);
      expect(kids(await keys.publicKeys(realm))).not.toContain(rotated.kid);
    });
  });

  it('makes a key of the new algorithm when the realm changes signing_alg, keeping the old one published', async () => {
    const { clock, keyStore } = setup();
    const keys = keyStore();
    const old = await keys.currentKey(realm);
    const changed = keyRealm({ signing_alg: 'EdDSA' });

    const current = await keys.currentKey(changed);
    expect(current.alg).toBe('EdDSA');
    expect(current.kid).not.toBe(old.kid);
    expect((await keys.currentKey(changed)).kid).toBe(current.kid);
    expect((await keyStore().currentKey(changed)).kid).toBe(current.kid);
    expect((await keys.publicKeys(changed)).map((jwk) => [jwk.kid, jwk.alg])).toEqual([
      [old.kid, 'ES256'],
      [current.kid, 'EdDSA'],
    ]);
    clock.advance(retention);
    expect(kids(await keys.publicKeys(changed))).toEqual([current.kid]);
  });

  it('lets instances racing to follow a signing_alg change converge on one new key', async () => {
    const { store, keyStore } = setup();
    const [a, b] = [keyStore(), keyStore()];
    await Promise.all([a.currentKey(realm), b.currentKey(realm)]);
    const changed = keyRealm({ signing_alg: 'EdDSA' });
    const [fromA, fromB] = await Promise.all([a.currentKey(changed), b.currentKey(changed)]);
    expect(fromA.kid).toBe(fromB.kid);
    expect(await store.get('signing_key', 'keys/3')).toBeUndefined();
  });

  it('returns the same JWKS array while the key set is unchanged, and a new one when it changes', async () => {
    const { clock, keyStore } = setup();
    const keys = keyStore();
    const first = await keys.publicKeys(realm, { fresh: true });
    expect(await keys.publicKeys(realm)).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);

    await keys.rotate(realm);
    const rotated = await keys.publicKeys(realm);
    expect(rotated).not.toBe(first);
    expect(await keys.publicKeys(realm)).toBe(rotated);

    clock.advance(retention);
    const retired = await keys.publicKeys(realm);
    expect(retired).toHaveLength(2);
    expect(retired).not.toBe(rotated);
    expect(await keys.publicKeys(realm)).toBe(retired);
  });

  it('reads the store at most once per refresh interval for cached public keys: its newest key and the next position, at once', async () => {
    const { clock, keyStore, store } = setup();
    const keys = keyStore();
    await keys.currentKey(realm);
    const reads = vi.spyOn(store, 'get');
    for (let i = 0; i < 10; i++) await keys.publicKeys(realm);
    expect(reads).not.toHaveBeenCalled();
    clock.advance(REFRESH_SECONDS + 1);
    await keys.publicKeys(realm);
    expect(reads.mock.calls).toEqual([
      ['signing_key', 'keys/1'],
      ['signing_key', 'keys/2'],
    ]);
  });

  it('makes a realm’s first key with one round trip of reads and one write: a first request waits for no more', async () => {
    const { keyStore, store } = setup();
    const reads = readsAtOnce(store);
    const writes = vi.spyOn(store, 'add');
    const key = await keyStore().currentKey(realm);
    expect(reads.calls).toEqual([['keys/1', 'keys/2']]);
    expect(writes.mock.calls).toEqual([['signing_key', 'keys/1', key]]);
  });

  it('keeps the keys of at most maxRealms realms, reading a forgotten realm’s back from the store', async () => {
    const { clock, store } = setup();
    const keys = new StoreKeyStore(store, { now: clock.now, maxRealms: 2 });
    const realms = ['a', 'b', 'c'].map((name) => keyRealm({ name }));
    const first = await Promise.all(realms.map((each) => keys.currentKey(each)));
    const reads = readsAtOnce(store);
    // c and b are kept, a was forgotten: its key is read again, the same key, in one round trip.
    expect((await keys.currentKey(realms[2] as Realm)).kid).toBe(first[2]?.kid);
    expect(reads.calls).toEqual([]);
    expect((await keys.currentKey(realms[0] as Realm)).kid).toBe(first[0]?.kid);
    expect(reads.calls).toEqual([['a/1', 'a/2']]);
  });

  it('reads on, one position at a time, past the first two positions of a realm with more keys', async () => {
    const { clock, store } = setup();
    const writer = new StoreKeyStore(store, { now: clock.now });
    await writer.currentKey(realm);
    await writer.rotate(realm);
    // Five keys: the realm signs with two algorithms, and each rotation makes a key of each.
    const newest = await writer.rotate(realm);
    const reads = readsAtOnce(store);
    expect((await new StoreKeyStore(store, { now: clock.now }).currentKey(realm)).kid).toBe(
      newest.kid,
    );
    expect(reads.calls).toEqual([
      ['keys/1', 'keys/2'],
      ['keys/3'],
      ['keys/4'],
      ['keys/5'],
      ['keys/6'],
    ]);
  });

  it('shares one store read among concurrent fresh lookups', async () => {
    const { keyStore, store } = setup();
    const keys = keyStore();
    await keys.publicKeys(realm, { fresh: true });
    const reads = vi.spyOn(store, 'get');
    await Promise.all(Array.from({ length: 20 }, () => keys.publicKeys(realm, { fresh: true })));
    expect(reads.mock.calls).toEqual([
      ['signing_key', 'keys/2'],
      ['signing_key', 'keys/3'],
    ]);
  });

  it('lets instances with different signing_alg run side by side without minting keys', async () => {
    const { keyStore } = setup();
    const [old, updated] = [keyStore(), keyStore()];
    const edRealm = keyRealm({ signing_alg: 'EdDSA' });
    const es = await old.currentKey(realm);
    const ed = await updated.currentKey(edRealm);
    for (let i = 0; i < 3; i++) {
      expect((await old.currentKey(realm)).kid).toBe(es.kid);
      expect((await updated.currentKey(edRealm)).kid).toBe(ed.kid);
    }
    const published = await updated.publicKeys(edRealm, { fresh: true });
    expect([...kidsOf(published), ...kidsOf(published, 'EdDSA')]).toEqual([es.kid, ed.kid]);
  });

  describe('RS256, which every realm offers for ID tokens', () => {
    const algs = (jwks: Published) => jwks.map((jwk) => jwk.alg);

    it('keeps a current key of each algorithm, and publishes both from the first JWKS read', async () => {
      const { keyStore } = setup();
      const keys = keyStore();
      expect(algs(await keys.publicKeys(realm, { fresh: true }))).toEqual(['ES256', 'RS256']);
      const es = await keys.currentKey(realm);
      const rs = await keys.currentKey(realm, 'RS256');
      expect([es.alg, rs.alg]).toEqual(['ES256', 'RS256']);
      expect((await keyStore().currentKey(realm, 'RS256')).kid).toBe(rs.kid);
    });

    it('makes one RS256 key however many requests and instances ask at once', async () => {
      const { store, keyStore } = setup();
      const instances = [keyStore(), keyStore()];
      const results = await Promise.all(
        instances.flatMap((keys) =>
          Array.from({ length: 5 }, () => keys.currentKey(realm, 'RS256')),
        ),
      );
      expect(new Set(results.map((key) => key.kid)).size).toBe(1);
      expect(await store.get('signing_key', 'keys/2')).toBeUndefined();
    });

    it('makes one key of a realm whose signing_alg is RS256', async () => {
      const { keyStore } = setup();
      const rsRealm = keyRealm({ signing_alg: 'RS256' });
      expect(algs(await keyStore().publicKeys(rsRealm, { fresh: true }))).toEqual(['RS256']);
    });

    it('rotates every algorithm; each old key stays published until its own successor outlived the tokens', async () => {
      const { clock, keyStore } = setup();
      const keys = keyStore();
      const oldEs = await keys.currentKey(realm);
      const oldRs = await keys.currentKey(realm, 'RS256');
      clock.advance(3600);
      const newEs = await keys.rotate(realm);
      expect(newEs.alg).toBe('ES256');
      const newRs = await keys.currentKey(realm, 'RS256');
      expect(newRs.kid).not.toBe(oldRs.kid);
      expect((await keys.currentKey(realm)).kid).toBe(newEs.kid);
      expect(new Set(kids(await keys.publicKeys(realm)))).toEqual(
        new Set([oldEs.kid, oldRs.kid, newEs.kid, newRs.kid]),
      );
      clock.advance(retention);
      expect(new Set(kids(await keys.publicKeys(realm)))).toEqual(new Set([newEs.kid, newRs.kid]));
    });

    it('keeps both current keys published however long no rotation happens', async () => {
      const { clock, keyStore } = setup();
      const keys = keyStore();
      const es = await keys.currentKey(realm);
      clock.advance(10);
      const rs = await keys.currentKey(realm, 'RS256');
      clock.advance(retention * 10);
      expect(kids(await keys.publicKeys(realm))).toEqual([es.kid, rs.kid]);
      expect((await keys.currentKey(realm)).kid).toBe(es.kid);
    });
  });
});
