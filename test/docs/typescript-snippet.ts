import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../server/support.js';

/**
 * Runs a TypeScript example of the docs as a reader would, saved to a file of its own and run with
 * `node --import tsx`, the workspace packages resolved from their sources as the tests use them,
 * the other packages it imports from the repository's node_modules, as from those of a reader's
 * project that installed them. Resolves with what it printed.
 */
export async function runSnippet(
  fileName: string,
  script: string,
  env: Record<string, string> = {},
): Promise<string> {
  const { dir, file } = savedSnippet(fileName, script);
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT,
      env: snippetEnv(env),
      timeout: 20_000,
    });
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A running example: what it printed so far, and the wait for a line of it. */
export interface RunningSnippet {
  readonly output: { stdout: string; stderr: string };
  /** The first match of `pattern` in the stream, once printed; fails when the script exits first. */
  waitFor(pattern: RegExp, stream?: 'stdout' | 'stderr'): Promise<RegExpExecArray>;
  /** Resolves with the exit code once the script ended. */
  readonly exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Starts an example that runs on (a server) or waits for its user (an agent), as runSnippet does. */
export function startSnippet(
  fileName: string,
  script: string,
  env: Record<string, string> = {},
): RunningSnippet {
  const { dir, file } = savedSnippet(fileName, script);
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    env: snippetEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    output,
    exited,
    async waitFor(pattern, stream = 'stdout') {
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
        const match = pattern.exec(output[stream]);
        if (match) return match;
        if (child.exitCode !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`${fileName} printed no ${pattern}:\n${output.stdout}\n${output.stderr}`);
    },
    async stop() {
      if (child.exitCode === null) child.kill();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The script saved in a reader's project directory of its own. */
function savedSnippet(fileName: string, script: string) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-doc-'));
  // Removing the directory removes the link, never what it points to.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const file = join(dir, fileName);
  writeFileSync(file, script);
  return { dir, file };
}

const snippetEnv = (env: Record<string, string>) => ({
  ...process.env,
  ...env,
  TSX_TSCONFIG_PATH: join(ROOT, 'test/tsconfig.json'),
});

/**
 * A page's complete run: the first TypeScript block after `marker` in docs/`page`, and the output
 * the page says it prints (the plain block after "It prints:").
 */
export function documentedRun(page: string, marker: string): { script: string; output: string } {
  const text = readFileSync(join(ROOT, 'docs', page), 'utf8');
  const from = text.indexOf(marker);
  const match = /```ts\n([\s\S]*?)```\n\nIt prints:\n\n```\n([\s\S]*?)```/.exec(
    from === -1 ? '' : text.slice(from),
  );
  if (!match?.[1] || !match[2]) throw new Error(`docs/${page} lost its run after "${marker}"`);
  return { script: match[1], output: match[2] };
}
