/**
 * Generates docs/api/, the API reference, with TypeDoc and typedoc-plugin-markdown, from the
 * declarations the packages publish: one module per entry of each package.json `exports` map,
 * named as users import it. `pnpm docs:api` builds, then runs this;
 * test/docs/api-reference.test.ts fails while the committed pages differ from a fresh run.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Application,
  LiteralType,
  type ProjectReflection,
  type TypeDocOptions,
  UnionType,
} from 'typedoc';
import type { PluginOptions } from 'typedoc-plugin-markdown';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const API_DOCS_DIR = join(ROOT, 'docs/api');
export const REGENERATE_COMMAND = 'pnpm docs:api';

export interface EntryPoint {
  /** What users import: `@gatehouse-oidc/core`, `@gatehouse-oidc/core/testing`… */
  module: string;
  /** The declaration file the exports map names for it. */
  declarations: string;
}

interface Manifest {
  name: string;
  private?: boolean;
  exports: Record<string, string | { types?: string }>;
}

/** Every public entry point of every published package, from the exports maps. */
export function publicEntryPoints(): EntryPoint[] {
  return readdirSync(join(ROOT, 'packages')).flatMap((dir) => {
    const manifest = JSON.parse(
      readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8'),
    ) as Manifest;
    if (manifest.private) return [];
    return Object.entries(manifest.exports).flatMap(([subpath, target]) =>
      typeof target === 'object' && target.types
        ? [
            {
              module: manifest.name + subpath.slice(1),
              declarations: join(ROOT, 'packages', dir, target.types),
            },
          ]
        : [],
    );
  });
}

/** Writes the reference into `out` (emptied first) from the built declarations. */
export async function renderApiDocs(out: string): Promise<void> {
  const entryPoints = publicEntryPoints();
  const options: Partial<TypeDocOptions & PluginOptions> = {
    name: 'Gatehouse API reference',
    entryPoints: entryPoints.map((entry) => entry.declarations),
    tsconfig: join(ROOT, 'scripts/tsconfig.api-docs.json'),
    plugin: ['typedoc-plugin-markdown'],
    out,
    readme: 'none',
    disableSources: true,
    skipErrorChecking: true,
    outputFileStrategy: 'modules',
    hidePageHeader: true,
    logLevel: 'Error',
  };
  const app = await Application.bootstrapWithPlugins(options);
  const project = await app.convert();
  if (!project) throw new Error('TypeDoc could not convert the declarations');
  nameModules(project, entryPoints);
  sortLiteralUnions(project);
  rmSync(out, { recursive: true, force: true });
  await app.generateOutputs(project);
}

/** TypeDoc names a module by its path (`core/dist`); users know it by its import specifier. */
function nameModules(project: ProjectReflection, entryPoints: EntryPoint[]): void {
  for (const module of project.children ?? []) {
    const file = project.getSymbolIdFromReflection(module)?.fileName;
    const entry = entryPoints.find((candidate) => candidate.declarations === file);
    if (!entry) throw new Error(`no entry point for the module ${module.name}`);
    module.name = entry.module;
  }
}

/**
 * TypeScript orders a union of literals by when it first met each literal, which changes with
 * unrelated code and with the order files are checked; sorted, the pages change only when a
 * type does.
 */
function sortLiteralUnions(project: ProjectReflection): void {
  const seen = new WeakSet<object>();
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (value instanceof UnionType && value.types.every((type) => type instanceof LiteralType))
      value.types.sort((a, b) => {
        const left = String((a as LiteralType).value);
        const right = String((b as LiteralType).value);
        return left < right ? -1 : left > right ? 1 : 0;
      });
    for (const child of Object.values(value)) visit(child);
  };
  visit(project);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await renderApiDocs(API_DOCS_DIR);
  console.log(`wrote ${API_DOCS_DIR}`);
}
