import { resolve } from 'node:path';
import {
  DEFAULT_SCENARIOS,
  isScenarioName,
  SCENARIO_NAMES,
  type ScenarioName,
} from './scenarios.js';
import { DEFAULT_SERVERS, isServerName, SERVER_NAMES, type ServerName } from './server-names.js';

export interface BenchSettings {
  readonly scenarios: readonly ScenarioName[];
  readonly servers: readonly ServerName[];
  readonly connections: number;
  /** Seconds measured per server. */
  readonly duration: number;
  /**
   * Times each scenario measures its servers, in alternation (each server once per round, a fresh
   * process each time). With more than one, the ratios are also given as medians over the rounds.
   */
  readonly rounds: number;
  /** Seconds of load before measuring, to let the JIT and caches settle. */
  readonly warmup: number;
  /**
   * Requests per second the one-time credentials of the user-grant scenarios are minted for: a
   * pool of `seconds × poolRate + connections` before the warm-up and another before the measured
   * run, for twice the warm-up's rate when that is higher (a fast machine). A run that spends its
   * whole pool fails rather than measure errors.
   */
  readonly poolRate: number;
  /**
   * The pool rate of better-auth's servers, which answer a few hundred requests a second at most
   * and mint each credential through their own endpoints (about 10 ms each): at `poolRate` their
   * pools would take most of an hour, and with one rate for all, a rate of theirs would run ours
   * dry. Each server's own rate lets them take part in the same alternating rounds as the others.
   */
  readonly betterAuthPoolRate: number;
  /** Calls per round of each side of the `resource_server_verify` scenario. */
  readonly verifyCalls: number;
  /** Requests per server of the `anonymous_memory` scenario. */
  readonly floodRequests: number;
  /** When set, each server's main thread is profiled over the measured run, into `<dir>/<scenario>/<server>.cpuprofile`. */
  readonly cpuProfileDir: string | undefined;
}

/** Reads the BENCH_* environment knobs (documented in docs/performance.md). */
export function readSettings(env: NodeJS.ProcessEnv): BenchSettings {
  return {
    scenarios: nameList(env, 'BENCH_SCENARIOS', SCENARIO_NAMES, isScenarioName, DEFAULT_SCENARIOS),
    servers: nameList(env, 'BENCH_SERVERS', SERVER_NAMES, isServerName, DEFAULT_SERVERS),
    connections: positiveInteger(env, 'BENCH_CONNECTIONS', 50),
    duration: positiveInteger(env, 'BENCH_DURATION', 10),
    rounds: positiveInteger(env, 'BENCH_ROUNDS', 1),
    warmup: positiveInteger(env, 'BENCH_WARMUP', 3),
    poolRate: positiveInteger(env, 'BENCH_POOL_RATE', 12_000),
    betterAuthPoolRate: positiveInteger(env, 'BENCH_BETTER_AUTH_POOL_RATE', 600),
    floodRequests: positiveInteger(env, 'BENCH_FLOOD_REQUESTS', 1_000_000),
    verifyCalls: positiveInteger(env, 'BENCH_VERIFY_CALLS', 2_000),
    // Relative to where `pnpm bench` was typed (pnpm runs the script inside bench/).
    cpuProfileDir: env.BENCH_CPU_PROFILE_DIR
      ? resolve(env.INIT_CWD ?? process.cwd(), env.BENCH_CPU_PROFILE_DIR)
      : undefined,
  };
}

/** The settings `name`'s pools are minted with: better-auth's at their own rate. */
export function poolSettingsOf(settings: BenchSettings, name: ServerName): BenchSettings {
  return name.startsWith('better-auth')
    ? { ...settings, poolRate: settings.betterAuthPoolRate }
    : settings;
}

/** A comma-separated subset of `all`, in the order given; `fallback` when unset. */
function nameList<T extends string>(
  env: NodeJS.ProcessEnv,
  variable: string,
  all: readonly T[],
  isName: (value: string) => value is T,
  fallback: readonly T[] = all,
): T[] {
  const names = (env[variable] || fallback.join(','))
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.find((name) => !isName(name));
  if (unknown !== undefined)
    throw new Error(`${variable}: unknown name "${unknown}" (${all.join(', ')})`);
  if (names.length === 0) throw new Error(`${variable} names none of ${all.join(', ')}`);
  return [...new Set(names)] as T[];
}

export function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}
