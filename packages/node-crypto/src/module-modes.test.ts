import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { compactVerify, exportJWK, generateKeyPair } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
/** The package's folder: a script run there imports `@gatehouse-oidc/node-crypto` as built. */
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Signs `a.b` with the ES256 key in GATEHOUSE_KEY and prints the compact JWS. */
const signOne = (signer: string) => `
const key = JSON.parse(process.env.GATEHOUSE_KEY);
const input = Buffer.from(key.header + '.' + Buffer.from('{"sub":"mode"}').toString('base64url'));
const signature = await Promise.race([
  ${signer}().sign(key, new Uint8Array(input)),
  new Promise((_, reject) => setTimeout(() => reject(new Error('no signature in 10 s')), 10_000)),
]);
process.stdout.write(input.toString() + '.' + Buffer.from(signature).toString('base64url'));
process.exit(0);
`;

/** The host process's module modes, each importing the package the way that mode does. */
const MODES = [
  {
    name: '--input-type=module',
    args: [
      '--input-type=module',
      '-e',
      `import { nodeCryptoSigner } from '@gatehouse-oidc/node-crypto';${signOne('nodeCryptoSigner')}`,
    ],
  },
  {
    name: '--input-type=commonjs, require() of the ES module',
    args: [
      '--input-type=commonjs',
      '-e',
      `const { nodeCryptoSigner } = require('@gatehouse-oidc/node-crypto');
      (async () => {${signOne('nodeCryptoSigner')}})().catch((error) => {
        console.error(error);
        process.exit(1);
      });`,
    ],
  },
  {
    // As `node --import tsx --import ./instrument.ts app.ts` is: tsx's loader reaches no worker
    // thread, so a thread that inherited the preloads failed on the `.ts` file.
    name: 'a preloaded module only the main thread can load',
    args: [
      '--import',
      `data:text/javascript,${encodeURIComponent(
        "import { isMainThread } from 'node:worker_threads'; if (!isMainThread) throw new Error('preloaded into a thread');",
      )}`,
      '--input-type=module',
      '-e',
      `import { nodeCryptoSigner } from '@gatehouse-oidc/node-crypto';${signOne('nodeCryptoSigner')}`,
    ],
  },
];

describe('nodeCryptoSigner in a child Node.js process', () => {
  beforeAll(async () => {
    // The child imports the package as built: build what changed.
    const tsc = `${ROOT}node_modules/typescript/bin/tsc`;
    await run(process.execPath, [tsc, '-b', 'packages/node-crypto'], { cwd: ROOT });
  }, 120_000);

  it.each(MODES)('signs a token when the host runs with $name', async ({ args }) => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'k1' })).toString('base64url');
    const key = {
      kid: 'k1',
      alg: 'ES256',
      privateJwk: { ...(await exportJWK(privateKey)), kid: 'k1', alg: 'ES256' },
      publicJwk: { ...publicJwk, kid: 'k1', alg: 'ES256', use: 'sig' },
      createdAt: 0,
      header,
    };
    const { stdout } = await run(process.execPath, args, {
      cwd: PACKAGE_DIR,
      env: { ...process.env, GATEHOUSE_KEY: JSON.stringify(key) },
      timeout: 15_000,
    });
    const { payload } = await compactVerify(stdout, { ...publicJwk, alg: 'ES256' });
    expect(JSON.parse(new TextDecoder().decode(payload))).toEqual({ sub: 'mode' });
  });
});
