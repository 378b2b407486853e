import { base64url, compactVerify, importJWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { SIGNING_ALGORITHMS } from '../config/realm.js';
import { buildRealm } from '../realms/realm.js';
import { validateRealm } from '../realms/realm-source.js';
import { MemoryStore } from '../store/memory-store.js';
import { StoreKeyStore } from './store-key-store.js';
import { webCryptoSigner } from './webcrypto-signer.js';

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const encoder = new TextEncoder();

describe.each(SIGNING_ALGORITHMS)('%s realm keys', (alg) => {
  it('are generated, published without private members, and verify what webCryptoSigner signs', async () => {
    const realm = buildRealm(
      validateRealm({ name: 'keys', signing_alg: alg }),
      'https://id.example.com',
    );
    const keys = new StoreKeyStore(new MemoryStore());
    const key = await keys.currentKey(realm);
    const [published, ...others] = await keys.publicKeys(realm);

    expect(others).toEqual([]);
    expect(published).toMatchObject({ kid: key.kid, alg, use: 'sig' });
    for (const member of PRIVATE_MEMBERS) expect(published).not.toHaveProperty(member);

    const header = base64url.encode(JSON.stringify({ alg, kid: key.kid }));
    const payload = base64url.encode(JSON.stringify({ sub: 'alice' }));
    const signer = webCryptoSigner();
    // Twice: the second signature comes from the cached imported key.
    for (let i = 0; i < 2; i++) {
      const signature = await signer.sign(key, encoder.encode(`${header}.${payload}`));
      const jws = `${header}.${payload}.${base64url.encode(signature)}`;
      const verified = await compactVerify(jws, await importJWK(published ?? {}, alg), {
        algorithms: [alg],
      });
      expect(JSON.parse(new TextDecoder().decode(verified.payload))).toEqual({ sub: 'alice' });
    }
  });
});
