import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientInput } from '@gatehouse-oidc/core';
import { ROOT } from '../../server/support.js';
import { freePort } from '../../support/ports.js';

/**
 * The relying-party apps of docs/relying-parties/*.md, run as a reader would run them: the code
 * blocks saved from the page unchanged and started with `node`, next to the repository's
 * node_modules (so `import 'express-openid-connect'` resolves the version the tests pin). The
 * page's client registration is the one the provider gets, with the page's example origin
 * swapped for the port the app really listens on.
 */

/** Where the pages' apps say they run; replaced by the real origin. */
const DOCUMENTED_ORIGIN = 'http://127.0.0.1:3000';
const SCRATCH = join(ROOT, 'node_modules/.cache/gatehouse-interop');

export function docPage(name: string): string {
  return readFileSync(join(ROOT, 'docs/relying-parties', `${name}.md`), 'utf8');
}

/** The page's fenced blocks of one language, in order. */
export function codeBlocks(page: string, language: string): string[] {
  const fence = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g');
  return [...page.matchAll(fence)].map(([, code = '']) => code);
}

/** A relying party of a page: its origin, and the client the provider must know it as. */
export interface DocumentedRelyingParty {
  origin: string;
  client: ClientInput;
}

/** The page's client registration (its `index`th JSON block) for an app at a fresh port. */
export async function documentedClient(page: string, index = 0): Promise<DocumentedRelyingParty> {
  const origin = `http://127.0.0.1:${await freePort()}`;
  const json = codeBlocks(page, 'json')[index];
  if (!json) throw new Error(`the page lost its client registration #${index}`);
  return { origin, client: JSON.parse(json.replaceAll(DOCUMENTED_ORIGIN, origin)) as ClientInput };
}

export interface RunningApp {
  origin: string;
  output(): string;
  stop(): Promise<void>;
}

/** Starts the page's `index`th JavaScript block as an app at `origin`, configured by env. */
export async function startDocumentedApp(
  page: string,
  index: number,
  { origin, client, issuer }: { origin: string; client: ClientInput; issuer: string },
): Promise<RunningApp> {
  const code = codeBlocks(page, 'js')[index];
  if (!code) throw new Error(`the page lost its app #${index}`);
  mkdirSync(SCRATCH, { recursive: true });
  const file = join(SCRATCH, `${randomBytes(6).toString('hex')}.mjs`);
  writeFileSync(file, code);
  const child = spawn(process.execPath, [file], {
    cwd: ROOT,
    env: {
      ...process.env,
      ISSUER: issuer,
      CLIENT_ID: client.client_id,
      ...(client.client_secret ? { CLIENT_SECRET: client.client_secret } : {}),
      BASE_URL: origin,
      SESSION_SECRET: randomBytes(32).toString('base64url'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    output += chunk;
  });
  await waitForListening(child, () => output);
  return {
    origin,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function waitForListening(child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!output().includes('listening')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the documented app did not start:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
