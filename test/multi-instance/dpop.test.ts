import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configDir, killAllCli } from '../server/support.js';
import { dpopKey } from '../support/dpop.js';
import { FORM_HEADERS, form, SECRETS } from '../support/fixtures.js';
import { type StoreUnderTest, storesUnderTest } from '../support/store-backends.js';
import { type Instance, startPairOn } from './instances.js';

/**
 * Two `gatehouse serve` processes behind one issuer on one shared store, PostgreSQL then Redis:
 * a DPoP proof used at one is refused at the other, and each accepts the other's nonces.
 */

const BASE_URL = 'https://idp.dpop-instances.test';
const TOKEN_URL = `${BASE_URL}/oauth/demo/token`;
const CLIENT_CREDENTIALS = form({
  grant_type: 'client_credentials',
  client_id: 'service',
  client_secret: SECRETS.post,
});

const dir = configDir();
afterAll(() => {
  killAllCli();
  dir.remove();
});

async function tokenRequest(instance: Instance, proof: string) {
  const response = await instance.fetch('/oauth/demo/token', {
    method: 'POST',
    headers: { ...FORM_HEADERS, dpop: proof },
    body: CLIENT_CREDENTIALS,
  });
  const body = (await response.json()) as Record<string, unknown>;
  return { status: response.status, body, nonce: response.headers.get('dpop-nonce') ?? '' };
}

describe.each(await storesUnderTest('dpop'))('two instances sharing one $name', ({ store }) => {
  describe.skipIf(!store)('with DPoP nonces required', () => {
    const backend = store as StoreUnderTest;
    let a: Instance;
    let b: Instance;

    beforeAll(async () => {
      [a, b] = await startPairOn(dir, backend, BASE_URL, {
        'realms.0.dpop': { require_nonce: true },
      });
    }, 60_000);

    afterAll(async () => {
      killAllCli();
      await backend.cleanUp();
    });

    it('accept at B the nonce A gave, and refuse at A the proof B accepted', async () => {
      const key = await dpopKey();
      const asked = await tokenRequest(a, await key.proof({ htu: TOKEN_URL }));
      expect(asked).toMatchObject({ status: 400, body: { error: 'use_dpop_nonce' } });
      expect(asked.nonce).not.toBe('');

      const proof = await key.proof({ htu: TOKEN_URL, nonce: asked.nonce });
      const issued = await tokenRequest(b, proof);
      expect(issued.status, JSON.stringify(issued.body)).toBe(200);
      expect(issued.body.token_type).toBe('DPoP');

      const replayed = await tokenRequest(a, proof);
      expect(replayed).toMatchObject({
        status: 400,
        body: { error: 'invalid_dpop_proof', error_description: 'the DPoP proof was used before' },
      });
    });
  });
});
