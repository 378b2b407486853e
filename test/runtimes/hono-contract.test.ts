import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SIGNING_ALGORITHMS } from '@gatehouse-oidc/core';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import {
  adapterContract,
  RECORDED_CASES,
  SnapshotRecorder,
  useRunningApp,
} from '../adapters/contract-cases.js';
import { contractMounts } from '../adapters/contract-setup.js';
import { honoHarness } from '../adapters/harnesses.js';
import { form } from '../support/fixtures.js';
import { availableRuntimes, bundle, serve } from '../support/runtimes.js';
import { SIGNING_BASE_URL, SIGNING_CLIENT, SIGNING_PREFIX } from './signing-realms.js';

/**
 * The Hono binding on Bun, Deno and workerd (Cloudflare Workers' runtime): the adapter contract
 * suite against the same host app, bundled into one ES module without Node's APIs and served by
 * each runtime; every answer must equal the one Hono gives on Node.js. Each runtime also signs
 * with every algorithm Gatehouse offers, through WebCrypto (the core's default signer).
 */

const recorder = new SnapshotRecorder();
const dir = mkdtempSync(join(tmpdir(), 'gatehouse-runtimes-'));
/** The bundle of runtime-app.ts, made once for every runtime. */
let worker: Promise<string> | undefined;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RUNNING = availableRuntimes('Hono on Bun, Deno and workerd');

describe('reference: Hono on Node.js', () => {
  const app = useRunningApp(async () => {
    const { mounts, close } = await contractMounts();
    const running = await honoHarness.start(mounts);
    return { origin: running.origin, close: () => running.close().then(close) };
  });
  adapterContract('node', app, recorder);
});

describe.each(RUNNING)('Hono on $name', (runtime) => {
  const app = useRunningApp(async () => {
    worker ??= bundle(join(import.meta.dirname, 'runtime-app.ts'), dir);
    return serve(runtime, await worker);
  });
  adapterContract(runtime.name, app, recorder);

  it.each(SIGNING_ALGORITHMS)(
    'signs with %s through WebCrypto, one key for concurrent first uses',
    async (alg) => {
      const realm = `${app().origin}${SIGNING_PREFIX}/oauth/${alg.toLowerCase()}`;
      const issue = async () => {
        const response = await fetch(`${realm}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form({
            grant_type: 'client_credentials',
            client_id: SIGNING_CLIENT.id,
            client_secret: SIGNING_CLIENT.secret,
          }),
        });
        expect(response.status).toBe(200);
        return ((await response.json()) as { access_token: string }).access_token;
      };
      // The realm's first requests, in flight together: the key is made once and shared.
      const tokens = await Promise.all(Array.from({ length: 5 }, issue));
      const jwks = createRemoteJWKSet(new URL(`${realm}/jwks`));
      const kids = new Set<string | undefined>();
      for (const token of tokens) {
        const { protectedHeader, payload } = await jwtVerify(token, jwks, { algorithms: [alg] });
        expect(payload.iss).toBe(`${SIGNING_BASE_URL}/oauth/${alg.toLowerCase()}`);
        kids.add(protectedHeader.kid);
      }
      expect(kids.size).toBe(1);
    },
  );
});

describe.skipIf(RUNNING.length === 0)('every runtime answers as Node.js does', () => {
  it.each(RECORDED_CASES)('%s', (name) => recorder.expectIdentical(name, 1 + RUNNING.length));
});
