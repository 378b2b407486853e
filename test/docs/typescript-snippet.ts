import { execFile } from 'node:child_process';
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
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-doc-'));
  try {
    // Removing the directory removes the link, never what it points to.
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const file = join(dir, fileName);
    writeFileSync(file, script);
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], {
      cwd: ROOT,
      env: { ...process.env, ...env, TSX_TSCONFIG_PATH: join(ROOT, 'test/tsconfig.json') },
      timeout: 20_000,
    });
    return stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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
