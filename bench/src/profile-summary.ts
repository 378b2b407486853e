import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/**
 * Summarises a V8 `.cpuprofile` (as written by `node --cpu-prof`): where the busy time went, by
 * function (self time) and by origin (package or Node internals). Idle time is left out of the
 * percentages, so they say what a request costs rather than how loaded the process was; so is
 * the inspector's own work (the bench stops its profile through `node:inspector`, and V8 samples
 * until the profile has been handed over).
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const IDLE = new Set(['(idle)', '(program)']);

function summarise(profile: Profile, top = 25): string {
  const tooling = inspectorNodes(profile);
  const selfMicros = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const byFunction = new Map<string, number>();
  const byOrigin = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const micros = selfMicros.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (micros === 0 || IDLE.has(functionName) || tooling.has(node.id)) continue;
    busy += micros;
    const where = url === '' ? '' : ` ${shortUrl(url)}:${lineNumber + 1}`;
    const name = `${functionName || '(anonymous)'}${where}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + micros);
    byOrigin.set(
      origin(functionName, url),
      (byOrigin.get(origin(functionName, url)) ?? 0) + micros,
    );
  }
  const rows = (map: Map<string, number>, limit: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([name, micros]) => `${((100 * micros) / busy).toFixed(1).padStart(5)}%  ${name}`);
  return [
    `busy ${(busy / 1e6).toFixed(2)} s`,
    '',
    'self time by origin:',
    ...rows(byOrigin, 15),
    '',
    `self time by function (top ${top}):`,
    ...rows(byFunction, top),
  ].join('\n');
}

/** The ids of `node:inspector` frames and of everything they called. */
function inspectorNodes(profile: Profile): Set<number> {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const found = new Set<number>();
  const mark = (id: number) => {
    if (found.has(id)) return;
    found.add(id);
    for (const child of byId.get(id)?.children ?? []) mark(child);
  };
  for (const node of profile.nodes) if (node.callFrame.url === 'node:inspector') mark(node.id);
  return found;
}

function shortUrl(url: string): string {
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1) return url.slice(modules + 'node_modules/'.length);
  const packages = url.indexOf('/packages/');
  if (packages !== -1) return url.slice(packages + 1);
  return url.replace(/^file:\/\/.*\/bench\//, 'bench/');
}

function origin(functionName: string, url: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node internals';
  const modules = url.lastIndexOf('node_modules/');
  if (modules !== -1) {
    const [scopeOrName, name] = url.slice(modules + 'node_modules/'.length).split('/');
    return scopeOrName?.startsWith('@') ? `${scopeOrName}/${name}` : (scopeOrName ?? url);
  }
  const packages = /\/packages\/([^/]+)\/src\/([^/]+)/.exec(url);
  if (packages) return `@gatehouse-oidc/${packages[1]} ${packages[2]}`;
  return shortUrl(url);
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: profile-summary <file.cpuprofile>...');
  process.exit(2);
}
for (const file of files) {
  console.log(
    `== ${file}\n${summarise(JSON.parse(readFileSync(resolve(process.env.INIT_CWD ?? process.cwd(), file), 'utf8')) as Profile)}\n`,
  );
}
