import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { ROOT } from '../server/support.js';

const run = promisify(execFile);

export interface Manifest {
  name: string;
  version: string;
  main?: string;
  types?: string;
  bin?: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  sideEffects?: boolean | string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  engines?: Record<string, string>;
  repository?: { directory?: string };
}

export interface Tarball {
  /** The directory under packages/. */
  dir: string;
  name: string;
  /** Absolute path of the .tgz. */
  file: string;
  /** Paths inside the package, as `pnpm pack` listed them. */
  files: string[];
  /** The package.json as packed (workspace: ranges replaced). */
  manifest: Manifest;
}

export const PACKAGE_DIRS = readdirSync(join(ROOT, 'packages')).filter((dir) =>
  existsSync(join(ROOT, 'packages', dir, 'package.json')),
);

/**
 * Brings dist up to date (a no-op after `pnpm typecheck`), then packs every package at once with
 * `pnpm pack`, which writes the published package.json (workspace: ranges resolved).
 */
export async function packAll(destination: string): Promise<Tarball[]> {
  await run('pnpm', ['exec', 'tsc', '-b', 'tsconfig.build.json'], { cwd: ROOT });
  return Promise.all(
    PACKAGE_DIRS.map(async (dir) => {
      const { stdout } = await run('pnpm', ['pack', '--json', '--pack-destination', destination], {
        cwd: join(ROOT, 'packages', dir),
      });
      const packed = JSON.parse(stdout) as {
        name: string;
        filename: string;
        files: { path: string }[];
      };
      const { stdout: manifest } = await run('tar', [
        '-xzOf',
        packed.filename,
        'package/package.json',
      ]);
      return {
        dir,
        name: packed.name,
        file: packed.filename,
        files: packed.files.map((file) => file.path).sort(),
        manifest: JSON.parse(manifest) as Manifest,
      };
    }),
  );
}

/** Every file path the manifest names: main, types, bin, export targets, sideEffects. */
export function namedPaths(manifest: Manifest): string[] {
  const targets = Object.values(manifest.exports).flatMap((target) =>
    typeof target === 'string' ? [target] : Object.values(target),
  );
  const sideEffects = Array.isArray(manifest.sideEffects) ? manifest.sideEffects : [];
  return [
    manifest.main,
    manifest.types,
    ...Object.values(manifest.bin ?? {}),
    ...targets,
    ...sideEffects,
  ]
    .filter((path): path is string => path !== undefined)
    .map((path) => path.replace(/^\.\//, ''));
}

const PUBLISHED = /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/.+\.(js|d\.ts))$/;

/**
 * What must not be in a tarball: anything but the manifest, README, LICENSE, changelog and
 * compiled JavaScript with its declarations; test files; and build output whose source is gone
 * (a stale dist after a file moved).
 */
export function unexpectedFiles({ dir, files }: Tarball): string[] {
  return files.filter((path) => {
    if (!PUBLISHED.test(path) || /\.test\.|(^|\/)test\//.test(path)) return true;
    if (!path.startsWith('dist/')) return false;
    const source = path.replace(/^dist\//, 'src/').replace(/\.(js|d\.ts)$/, '.ts');
    return !existsSync(join(ROOT, 'packages', dir, source));
  });
}

/**
 * The compiled modules reachable from an entry point of an unpacked package (pkgDir), following
 * relative imports; each with the bare specifiers it imports (`node:fs`, `jose`, `zod/mini`…).
 * TypeScript's own pre-processor finds the imports, re-exports and dynamic imports.
 */
export function moduleGraph(pkgDir: string, entry: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (graph.has(file)) continue;
    const source = readFileSync(join(pkgDir, file), 'utf8');
    const specifiers = ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
    const relative = specifiers.filter((specifier) => specifier.startsWith('.'));
    graph.set(
      file,
      specifiers.filter((specifier) => !relative.includes(specifier)),
    );
    for (const specifier of relative) pending.push(posix.join(posix.dirname(file), specifier));
  }
  return graph;
}

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `zod/mini` → `zod`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}
