import { parseArgs } from 'node:util';

export const USAGE = `usage:
  gatehouse serve --config <file.json> [--port <n>] [--host <h>]
  gatehouse check --config <file.json>
  gatehouse migrate --config <file.json>`;

export type Command =
  | { name: 'serve'; config: string; port?: number; host?: string }
  | { name: 'check' | 'migrate'; config: string }
  | { name: 'help' };

/** A command line that names no known command or flag; the CLI prints it with the usage. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const CONFIG = { config: { type: 'string' } } as const;
const SERVE = { ...CONFIG, port: { type: 'string' }, host: { type: 'string' } } as const;

export function parseCommandLine(argv: readonly string[]): Command {
  const [name, ...rest] = argv;
  if (name === undefined) throw new UsageError('missing command');
  if (name === 'help' || name === '--help' || name === '-h') return { name: 'help' };
  if (name === 'check' || name === 'migrate') {
    const { config } = parseFlags(rest, CONFIG);
    return { name, config: required(config, 'config') };
  }
  if (name === 'serve') {
    const { config, port, host } = parseFlags(rest, SERVE);
    return {
      name,
      config: required(config, 'config'),
      ...(port !== undefined && { port: parsePort(port) }),
      ...(host !== undefined && { host: nonEmpty(host, 'host') }),
    };
  }
  throw new UsageError(`unknown command "${name}"`);
}

function parseFlags<const O extends Record<string, { type: 'string' }>>(
  args: string[],
  options: O,
): { [K in keyof O]?: string } {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values as {
      [K in keyof O]?: string;
    };
  } catch (error) {
    // parseArgs explains what was wrong (unknown option, missing value, stray argument).
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function required(value: string | undefined, flag: string): string {
  if (value === undefined) throw new UsageError(`--${flag} is required`);
  return value;
}

function nonEmpty(value: string, flag: string): string {
  if (value === '') throw new UsageError(`--${flag} must not be empty`);
  return value;
}

function parsePort(value: string): number {
  const port = /^\d{1,5}$/.test(value) ? Number(value) : Number.NaN;
  if (!(port <= 65_535))
    throw new UsageError(`--port must be a number from 0 to 65535, got "${value}"`);
  return port;
}
