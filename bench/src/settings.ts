import { resolve } from 'node:path';
import { isServerName, SERVER_NAMES, type ServerName } from './server-names.js';

export interface BenchSettings {
  readonly servers: readonly ServerName[];
  readonly connections: number;
  /** Seconds measured per server. */
  readonly duration: number;
  /** Seconds of load before measuring, to let the JIT and caches settle. */
  readonly warmup: number;
  /** When set, each server child writes a V8 CPU profile into this directory. */
  readonly cpuProfileDir: string | undefined;
}

/** Reads the BENCH_* environment knobs (documented in docs/performance.md). */
export function readSettings(env: NodeJS.ProcessEnv): BenchSettings {
  const servers = (env.BENCH_SERVERS ?? SERVER_NAMES.join(','))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = servers.find((name) => !isServerName(name));
  if (unknown !== undefined)
    throw new Error(`BENCH_SERVERS: unknown server "${unknown}" (${SERVER_NAMES.join(', ')})`);
  return {
    servers: servers as ServerName[],
    connections: positiveInteger(env, 'BENCH_CONNECTIONS', 50),
    duration: positiveInteger(env, 'BENCH_DURATION', 10),
    warmup: positiveInteger(env, 'BENCH_WARMUP', 3),
    // Relative to where `pnpm bench` was typed (pnpm runs the script inside bench/).
    cpuProfileDir: env.BENCH_CPU_PROFILE_DIR
      ? resolve(env.INIT_CWD ?? process.cwd(), env.BENCH_CPU_PROFILE_DIR)
      : undefined,
  };
}

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}
