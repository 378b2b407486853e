import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { expect } from 'vitest';
import type { Tarball } from './tarballs.js';

const run = promisify(execFile);
const FIXTURES = new URL('./apps/', import.meta.url);
/** The client of apps/realm.json, the one of the packages' README examples. */
const CLIENT = { id: 'reporting', secret: 'change-me-to-a-long-random-secret' };

export interface Installation {
  /** Our packages, by directory under packages/, from their tarballs. */
  packages: readonly string[];
  /** Everything else, from the npm registry: name to range. */
  registry: Readonly<Record<string, string>>;
  /**
   * The apps, each a directory under apps/ copied with realm.json into its own package (with
   * "type": "module" or none, a CommonJS package) that resolves from the shared node_modules.
   */
  apps: ReadonlyArray<{ fixture: string; type?: 'module' }>;
}

/**
 * Creates the apps under `root` (outside the workspace) and installs their dependencies once
 * with npm, in `root`: our packages from their tarballs, the rest from the registry through the
 * user's npm cache. One node_modules for several apps, as in a workspace, to write it only once.
 */
export async function install(
  root: string,
  spec: Installation,
  tarballs: Tarball[],
): Promise<void> {
  for (const { fixture, type } of spec.apps) {
    const dir = join(root, fixture);
    cpSync(new URL(fixture, FIXTURES), dir, { recursive: true });
    cpSync(new URL('realm.json', FIXTURES), join(dir, 'realm.json'));
    writeManifest(dir, { name: `consumer-${fixture}`, private: true, ...(type ? { type } : {}) });
  }
  const ours = spec.packages.map((packageDir) => {
    const tarball = tarballs.find((candidate) => candidate.dir === packageDir);
    if (!tarball) throw new Error(`no tarball for packages/${packageDir}`);
    return [tarball.name, `file:${tarball.file}`];
  });
  writeManifest(root, {
    name: 'consumer-apps',
    private: true,
    dependencies: { ...Object.fromEntries(ours), ...spec.registry },
  });
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], {
    cwd: root,
    timeout: 240_000,
  });
}

function writeManifest(dir: string, manifest: object): void {
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}

export interface RunningApp {
  baseUrl: string;
  output: () => string;
  stop: () => Promise<void>;
}

/**
 * Runs `command` in the app's directory with PORT set to `port`, and resolves once it printed
 * `ready` (the apps' last act after listening) or, for the standalone server, `listening on`.
 * `baseUrl` is Gatehouse's mount point.
 */
export async function startApp(
  dir: string,
  [command, ...args]: [string, ...string[]],
  { port, mount = '/auth' }: { port: number; mount?: string },
): Promise<RunningApp> {
  const child = spawn(command, args, { cwd: dir, env: { ...process.env, PORT: `${port}` } });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "ready" within 30 s:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (/^ready$/m.test(output) || /listening on/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before it was ready:\n${output}`));
    });
  });
  return {
    baseUrl: `http://127.0.0.1:${port}${mount}`,
    output: () => output,
    stop: () => stopProcess(child, exited),
  };
}

async function stopProcess(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill();
  await exited;
}

/**
 * What a relying party does first: discovery of realm `demo`, then a client_credentials token
 * from the token endpoint it names, verified against the JWKS it names.
 */
export async function expectDiscoveryAndToken(baseUrl: string): Promise<void> {
  const issuer = `${baseUrl}/oauth/demo`;
  const discovery = await fetch(`${issuer}/.well-known/openid-configuration`);
  expect(discovery.status).toBe(200);
  const metadata = (await discovery.json()) as Record<string, string>;
  expect(metadata.issuer).toBe(issuer);
  expect(metadata.token_endpoint).toBe(`${issuer}/token`);

  const response = await fetch(metadata.token_endpoint as string, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
    }),
  });
  expect(response.status).toBe(200);
  const token = (await response.json()) as Record<string, string>;
  expect(token).toMatchObject({ token_type: 'Bearer', scope: 'api:read' });
  const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri as string));
  const { payload } = await jwtVerify(token.access_token as string, jwks, { issuer });
  expect(payload).toMatchObject({ client_id: CLIENT.id, scope: 'api:read' });
}
