import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServerConfigInput } from '@gatehouse-oidc/server';
import { SECRETS } from '../support/fixtures.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const EXAMPLE_CONFIG = join(ROOT, 'examples/standalone/gatehouse.json');
export const ADMIN_TOKEN = 'admin-token-0123456789abcdef0123456789';

/** "bob-password" hashed with N=2^14 (the smallest accepted cost, so tests stay fast). */
export const BOB_PASSWORD_HASH =
  'scrypt$16384$8$1$6iWVsYMMfx2w6t1jB49U6g$Xc_H54SokP9mERtnOnKy3v5kz2d_PdPyaH3-XW2Md7w';

/** A small valid server config; tests change one thing at a time with `withChanges`. */
export function validConfig(): ServerConfigInput {
  return {
    base_url: 'http://127.0.0.1:3000',
    admin_token: ADMIN_TOKEN,
    realms: [
      {
        name: 'demo',
        scopes: ['openid', 'profile', 'api:read'],
        resources: [{ uri: 'https://api.example.com', client_id: 'api', scopes: ['api:read'] }],
        clients: [
          {
            client_id: 'service',
            client_secret: SECRETS.post,
            token_endpoint_auth_method: 'client_secret_post',
            grant_types: ['client_credentials'],
            scope: 'api:read',
          },
          { client_id: 'api', client_secret: SECRETS.api, grant_types: [], scope: 'openid' },
          {
            client_id: 'web',
            client_secret: SECRETS.basic,
            redirect_uris: ['https://app.example.com/cb'],
            scope: 'openid profile',
          },
        ],
        users: [
          {
            sub: 'alice',
            username: 'alice',
            password: 'alice-password',
            claims: { name: 'Alice' },
          },
          { sub: 'bob', username: 'bob', password_hash: BOB_PASSWORD_HASH },
        ],
      },
    ],
  };
}

/**
 * A deep copy of `base` with each dotted path (`realms.0.clients.2.scope`) set to its value;
 * `undefined` removes the key.
 */
export function withChanges(
  base: object,
  changes: Record<string, unknown>,
): Record<string, unknown> {
  const copy = structuredClone(base) as Record<string, unknown>;
  for (const [path, value] of Object.entries(changes)) {
    const keys = path.split('.');
    const last = keys.pop() as string;
    let target = copy;
    for (const key of keys) target = target[key] as Record<string, unknown>;
    if (value === undefined) delete target[last];
    else target[last] = value;
  }
  return copy;
}

/** A scratch directory for config files, removed by the returned cleanup. */
export function configDir() {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-server-'));
  const path = (name: string) => join(dir, name);
  return {
    path,
    /** Writes `content` (JSON unless a string) and returns the file's path. */
    write(name: string, content: unknown): string {
      writeFileSync(path(name), typeof content === 'string' ? content : JSON.stringify(content));
      return path(name);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The CLI from its TypeScript sources, resolving @gatehouse-oidc/* to sources like vitest does. */
export class CliProcess {
  readonly child: ChildProcess;
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;

  /** `env` adds to the test's environment, e.g. `NODE_EXTRA_CA_CERTS`. */
  constructor(args: readonly string[], env: Record<string, string> = {}) {
    this.child = spawn(
      process.execPath,
      ['--import', 'tsx', 'packages/server/src/cli/main.ts', ...args],
      {
        cwd: ROOT,
        env: { ...process.env, TSX_TSCONFIG_PATH: 'test/tsconfig.json', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
    });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    // 'close' rather than 'exit': by then all of stdout and stderr has been read.
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code)));
    running.add(this);
    void this.exited.then(() => running.delete(this));
  }

  /**
   * Resolves with the first match of `pattern` in the output stream, polling until `timeoutMs`:
   * by default 25 s, as a start through tsx on a machine running other suites has taken 15 s.
   */
  async waitFor(pattern: RegExp, stream: 'stdout' | 'stderr' = 'stdout', timeoutMs = 25_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(this[stream]);
      if (match) return match;
      if (this.child.exitCode !== null || Date.now() > deadline) {
        throw new Error(
          `no ${pattern} in ${stream}; stdout:\n${this.stdout}\nstderr:\n${this.stderr}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** The origin it listens on, once it says so. */
  async origin(): Promise<string> {
    const [, origin] = await this.waitFor(/^gatehouse listening on (http:\/\/\S+)$/m);
    return origin as string;
  }

  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}

const running = new Set<CliProcess>();

/** For afterAll: no child outlives its test file, whatever failed. */
export function killAllCli(): void {
  for (const cli of running) cli.kill();
}

/** Runs the CLI to completion. */
export async function runCli(args: readonly string[]) {
  const cli = new CliProcess(args);
  const code = await cli.exited;
  return { code, stdout: cli.stdout, stderr: cli.stderr };
}

/** An inject request: `service` asks the realm's token endpoint for a client_credentials token. */
export function serviceTokenRequest(realm: string, secret: string = SECRETS.post) {
  return {
    method: 'POST' as const,
    url: `/oauth/${realm}/token`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: 'service',
      client_secret: secret,
    }).toString(),
  };
}
