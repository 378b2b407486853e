import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Worker } from 'node:worker_threads';
import type { SigningKey } from '@gatehouse-oidc/core';
import { describeSignerContract } from '@gatehouse-oidc/core/testing';
import { base64url, compactVerify, importJWK } from 'jose';
import { describe, expect, it, vi } from 'vitest';
import { jwkThumbprint } from '../../core/src/dpop/thumbprint.js';
import { generateSigningKey } from '../../core/src/keys/generate.js';
import { nodeCryptoSigner } from './node-crypto-signer.js';

/** Every signing thread started, newest last, so that tests can disturb one; or make one fail. */
const threads = vi.hoisted(() => ({ started: [] as Worker[], failNextStart: false }));
const workers = threads.started;
vi.mock('./sign-worker.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('./sign-worker.js')>();
  return {
    ...original,
    startSignWorker: () => {
      if (threads.failNextStart) {
        threads.failNextStart = false;
        throw new Error('no thread for you');
      }
      const worker = original.startSignWorker();
      workers.push(worker);
      return worker;
    },
  };
});

const encoder = new TextEncoder();
const NOW = 1_900_000_000;

/** The compact JWS of `payload` signed by `signer` with `key`, built the way core builds it. */
async function compactJws(
  signer = nodeCryptoSigner(),
  key: SigningKey,
  payload: object,
): Promise<string> {
  const header = base64url.encode(JSON.stringify({ alg: key.alg, kid: key.kid }));
  const signingInput = `${header}.${base64url.encode(JSON.stringify(payload))}`;
  const signature = await signer.sign(key, encoder.encode(signingInput));
  return `${signingInput}.${base64url.encode(signature)}`;
}

describeSignerContract('nodeCryptoSigner', nodeCryptoSigner);

describe('nodeCryptoSigner batching', () => {
  it('answers every one of many signatures requested in the same turn with its own signature', async () => {
    const keys = await Promise.all([
      generateSigningKey('ES256', NOW),
      generateSigningKey('EdDSA', NOW),
    ]);
    const signer = nodeCryptoSigner();
    const payloads = Array.from({ length: 40 }, (_, n) => ({ n }));
    const signed = await Promise.all(
      payloads.map((payload, n) => compactJws(signer, keys[n % 2] as SigningKey, payload)),
    );
    const verified = await Promise.all(
      signed.map((jws, n) => compactVerify(jws, (keys[n % 2] as SigningKey).publicJwk)),
    );
    expect(verified.map((v) => JSON.parse(new TextDecoder().decode(v.payload)))).toEqual(payloads);
  });

  it('rejects only the signature that fails, not the others of its batch', async () => {
    const [good, ed25519] = await Promise.all([
      generateSigningKey('ES256', NOW),
      generateSigningKey('EdDSA', NOW),
    ]);
    // Ed25519 key material under an ES256 label: node:crypto refuses a SHA-256 digest for it.
    const mislabeled: SigningKey = { ...ed25519, alg: 'ES256' };
    const signer = nodeCryptoSigner();
    const [failed, succeeded] = await Promise.allSettled([
      compactJws(signer, mislabeled, { n: 1 }),
      compactJws(signer, good, { n: 2 }),
    ]);
    expect(failed).toMatchObject({
      status: 'rejected',
      reason: { message: expect.stringMatching(/^signing failed/) },
    });
    expect(succeeded.status).toBe('fulfilled');
    if (succeeded.status === 'fulfilled')
      await expect(compactVerify(succeeded.value, good.publicJwk)).resolves.toBeDefined();
  });
});

describe('nodeCryptoSigner when its thread misbehaves', () => {
  /** A signer with one signature under way, and the thread it went to. */
  async function signatureUnderWay() {
    const key = await generateSigningKey('ES256', NOW);
    const signer = nodeCryptoSigner();
    const signature = signer.sign(key, encoder.encode('header.payload'));
    // The batch leaves at the end of this turn.
    await new Promise((resolve) => setImmediate(resolve));
    const worker = workers.at(-1) as Worker;
    return { key, signer, signature, worker };
  }

  /** The signer still signs afterwards, on a new thread. */
  async function signsAgain(signer: ReturnType<typeof nodeCryptoSigner>, key: SigningKey) {
    const before = workers.length;
    await expect(
      compactVerify(await compactJws(signer, key, { n: 2 }), key.publicJwk),
    ).resolves.toBeDefined();
    expect(workers.length).toBe(before + 1);
  }

  it('fails what it owes and starts afresh when an answer is not the next batch’s', async () => {
    const { key, signer, signature, worker } = await signatureUnderWay();
    worker.emit('message', { batch: 1_000, results: [64], signatures: new Uint8Array(64) });
    await expect(signature).rejects.toThrow('answered out of order');
    await signsAgain(signer, key);
  });

  it('does so too for an answer with the wrong number of results, or one it cannot read', async () => {
    for (const disturb of [
      (worker: Worker) =>
        worker.emit('message', { batch: 1, results: [64, 64], signatures: new Uint8Array(128) }),
      // Lengths that do not take up the signatures' buffer exactly.
      (worker: Worker) =>
        worker.emit('message', { batch: 1, results: [64], signatures: new Uint8Array(32) }),
      (worker: Worker) =>
        worker.emit('message', { batch: 1, results: [-1], signatures: new Uint8Array(0) }),
      (worker: Worker) => worker.emit('message', { batch: 1, results: [64] }),
      (worker: Worker) => worker.emit('messageerror', new Error('cannot deserialize')),
    ]) {
      const { key, signer, signature, worker } = await signatureUnderWay();
      disturb(worker);
      await expect(signature).rejects.toThrow(/signing worker/);
      await signsAgain(signer, key);
    }
  });

  it('fails a signature pending on a thread that dies, and signs on the next one', async () => {
    const { key, signer, signature, worker } = await signatureUnderWay();
    // As Node reports a thread's death; a real terminate() may come after its answer.
    worker.emit('exit', 1);
    await expect(signature).rejects.toThrow('the signing worker exited');
    await signsAgain(signer, key);
  });

  it('fails the whole batch, not just one caller, when no thread can be started', async () => {
    const key = await generateSigningKey('ES256', NOW);
    const signer = nodeCryptoSigner();
    threads.failNextStart = true;
    // Nine signatures: a full batch of eight leaves at once, the ninth at the end of the turn.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 9 }, (_, n) => compactJws(signer, key, { n })),
    );
    expect(outcomes.filter(({ status }) => status === 'rejected')).toHaveLength(8);
    expect(outcomes.at(-1)?.status).toBe('fulfilled');
  });
});

describe('nodeCryptoSigner past its key limit', () => {
  it('drops the oldest keys from its thread too, and prepares a dropped key again when used', async () => {
    const keys = await Promise.all(
      Array.from({ length: 1_001 }, () => generateSigningKey('ES256', NOW)),
    );
    const signer = nodeCryptoSigner();
    const first = keys[0] as SigningKey;
    await compactJws(signer, first, { warm: true });
    const thread = workers.at(-1) as Worker;
    const posted = vi.spyOn(thread, 'postMessage');
    for (let at = 1; at < keys.length; at += 100)
      await Promise.all(keys.slice(at, at + 100).map((key) => compactJws(signer, key, {})));
    const droppedIds = posted.mock.calls.flatMap(
      ([batch]) => (batch as { dropped: string[] }).dropped,
    );
    expect(droppedIds).toEqual(['sign:0']);
    // The first key was dropped: it is prepared and sent again, and signs as itself.
    const jws = await compactJws(signer, first, { again: true });
    await expect(compactVerify(jws, first.publicJwk)).resolves.toBeDefined();
    expect(workers.at(-1)).toBe(thread);
  }, 30_000);
});

describe('nodeCryptoSigner making keys', () => {
  it.each(['ES256', 'EdDSA', 'RS256', 'PS256'] as const)(
    'makes %s key pairs it signs with and jose verifies, the public half without the private',
    async (alg) => {
      const signer = nodeCryptoSigner();
      const pair = await signer.generateKeyPair?.(alg);
      if (!pair) throw new Error('nodeCryptoSigner makes no keys');
      expect(pair.publicJwk).not.toHaveProperty('d');
      const kid = jwkThumbprint(pair.publicJwk);
      const key: SigningKey = {
        kid: kid as string,
        alg,
        privateJwk: { ...pair.privateJwk, kid, alg },
        publicJwk: { ...pair.publicJwk, kid, alg, use: 'sig' },
        createdAt: NOW,
      };
      const jws = await compactJws(signer, key, { alg });
      await expect(compactVerify(jws, await importJWK(key.publicJwk, alg))).resolves.toBeDefined();
      // Each pair is new.
      const other = await signer.generateKeyPair?.(alg);
      expect(other?.publicJwk).not.toEqual(pair.publicJwk);
    },
  );
});

describe('nodeCryptoSigner signing with keys it made', () => {
  it('signs with each as itself, in any order, first and later signatures alike', async () => {
    const signer = nodeCryptoSigner();
    const makePair = signer.generateKeyPair;
    if (!makePair) throw new Error('nodeCryptoSigner makes no keys');
    const made = await Promise.all(
      Array.from({ length: 3 }, () => generateSigningKey('ES256', NOW, makePair)),
    );
    for (const key of [...made].reverse()) {
      for (const again of [false, true]) {
        const jws = await compactJws(signer, key, { again });
        await expect(
          compactVerify(jws, await importJWK(key.publicJwk, 'ES256')),
        ).resolves.toBeDefined();
      }
    }
  });
});

describe('nodeCryptoSigner churning through keys', () => {
  it('frees the OpenSSL memory of the keys its thread dropped without waiting for V8', async () => {
    // V8's gc() for this test only. The main thread's garbage (its own KeyObjects for the keys it
    // prepares again) is collected after every round, before freed memory piles up that the
    // allocator would keep resident: what grows is what the signing thread keeps.
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    setFlagsFromString('--no-expose-gc');
    // One more key than the signer keeps, signed with in turn: each signature drops the key least
    // recently used, so the thread forgets one KeyObject and imports another per signature.
    const keys = await Promise.all(
      Array.from({ length: 1_100 }, () => generateSigningKey('ES256', NOW)),
    );
    const signer = nodeCryptoSigner();
    const input = encoder.encode('header.payload');
    const signWithEach = async (rounds: number) => {
      for (let round = 0; round < rounds; round++) {
        for (let at = 0; at < keys.length; at += 100) {
          await Promise.all(keys.slice(at, at + 100).map((key) => signer.sign(key, input)));
        }
        collectGarbage();
      }
      return process.memoryUsage().rss;
    };
    const before = await signWithEach(3);
    const after = await signWithEach(9);
    // 9,900 keys dropped. Each kept about 5 KiB of OpenSSL memory, which V8 does not see, until
    // a full collection of the thread's heap, which its few allocations seldom bring: 30-45 MiB
    // more without the thread's own collection, none with it (from -7 to +3 MiB).
    expect(after - before).toBeLessThan(15 * 1024 * 1024);
  }, 90_000);
});
