import type { z } from 'zod';

export interface ConfigIssue {
  /** Dotted path into the configuration, e.g. `realms[0].clients[1].redirect_uris[0]`. */
  path: string;
  message: string;
}

/** Thrown at start-up for an invalid configuration; lists every problem, not just the first. */
export class ConfigError extends Error {
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    super(`invalid configuration:\n${issues.map(formatIssue).join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

export function formatIssue(issue: ConfigIssue): string {
  return issue.path ? `${issue.path}: ${issue.message}` : issue.message;
}

export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

export function joinPath(prefix: string, path: string): string {
  if (prefix === '') return path;
  if (path === '') return prefix;
  return path.startsWith('[') ? `${prefix}${path}` : `${prefix}.${path}`;
}

export function zodIssues(error: z.ZodError, prefix = ''): ConfigIssue[] {
  return error.issues.map((issue) => ({
    path: joinPath(prefix, formatPath(issue.path)),
    message: issue.message,
  }));
}

/** Parses with a schema, or throws a ConfigError listing every issue under `prefix`. */
export function parseConfig<S extends z.ZodType>(
  schema: S,
  input: unknown,
  prefix = '',
): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw new ConfigError(zodIssues(result.error, prefix));
  return result.data;
}
