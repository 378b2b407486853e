import { readFile } from 'node:fs/promises';
import {
  baseUrlSchema,
  ConfigError,
  type ConfigIssue,
  type RealmInput,
  realmSchema,
  validateRealms,
  zodIssues,
} from '@gatehouse/core';
import { z } from 'zod';
import { usersSchema } from './users.js';

export const MIN_SECRET_LENGTH = 32;

/** Stores that need a later release: named so the operator knows the value was understood. */
const UPCOMING_STORES = /^(postgres|postgresql|redis|rediss):\/\//i;

const storeSchema = z
  .string()
  .default('memory')
  .transform((value, ctx) => {
    if (value === 'memory') return 'memory' as const;
    // The value may be a URL with a password in it: never echo it.
    const scheme = UPCOMING_STORES.exec(value)?.[1];
    ctx.addIssue({
      code: 'custom',
      message: scheme
        ? `the ${scheme.toLowerCase()} store is not available yet; use "memory"`
        : 'must be "memory", a postgres:// URL or a redis:// URL',
    });
    return z.NEVER;
  });

const secret = (what: string) =>
  z
    .string()
    .min(MIN_SECRET_LENGTH, `must be at least ${MIN_SECRET_LENGTH} characters`)
    .describe(what);

/** An http(s) URL fetch can send to: credentials in the URL are refused by fetch itself. */
const webhookUrl = z
  .string()
  .superRefine((value, ctx) => {
    const url = URL.canParse(value) ? new URL(value) : undefined;
    if (!url || !/^https?:$/.test(url.protocol)) {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http(s) URL' });
    } else if (url.username !== '' || url.password !== '') {
      ctx.addIssue({ code: 'custom', message: 'must not contain a user name or password' });
    }
  })
  .describe('Where the server POSTs each CIBA request for the authenticator (docs/ciba.md).');

/** Core's ciba settings plus how the standalone server reaches the authenticator. */
const serverCibaSchema = realmSchema.shape.ciba.unwrap().safeExtend({
  authenticator: z.strictObject(
    { webhook_url: webhookUrl },
    {
      error: (issue) =>
        issue.input === undefined
          ? 'is required: the server reaches the authenticator through its webhook_url'
          : undefined,
    },
  ),
});

export const serverRealmSchema = realmSchema.extend({
  users: usersSchema,
  ciba: serverCibaSchema
    .optional()
    .describe(
      'Backchannel authentication (CIBA, poll mode): pushed to the webhook, answered through the admin API.',
    ),
});

export const serverConfigSchema = z.strictObject({
  base_url: baseUrlSchema.describe('Public origin; the issuer of realm R is `{base_url}/oauth/R`.'),
  port: z.number().int().min(0).max(65_535).default(3000),
  host: z.string().min(1).default('127.0.0.1'),
  store: storeSchema,
  // The contract's own example uses a short token, so length is a start-up warning, not an error.
  admin_token: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Bearer token for /admin/*; absent turns the admin API off. Use 32+ random characters.',
    ),
  cookie_secret: secret(
    'Keys the CSRF tokens of the login and consent forms; instances behind one base_url share it. Absent: a random key per process.',
  ).optional(),
  trust_proxy: z
    .boolean()
    .default(false)
    .describe(
      'The server sits behind one reverse proxy that appends the client address to X-Forwarded-For: the login throttle counts that address rather than the proxy’s. Leave false when clients can reach the server directly, or they could pick their address.',
    ),
  print_credentials: z
    .boolean()
    .default(false)
    .describe('Print every client secret and user password at start: local development only.'),
  realms: z.array(serverRealmSchema).min(1, 'must list at least one realm'),
});

export type ServerConfigInput = z.input<typeof serverConfigSchema>;
export type ServerConfig = z.output<typeof serverConfigSchema>;
export type ServerRealmConfig = ServerConfig['realms'][number];

/** Validates a parsed config file and throws a ConfigError listing every problem. */
export function parseServerConfig(input: unknown): ServerConfig {
  const result = serverConfigSchema.safeParse(input);
  // Cross-field rules also run on the realms that are well-formed when something else is not,
  // so one run lists every problem.
  const issues = [...(result.success ? [] : zodIssues(result.error)), ...crossFieldIssues(input)];
  if (!result.success || issues.length > 0) throw new ConfigError(issues);
  return result.data;
}

/** The realm as core's provider takes it, without the server-only keys. */
export function providerRealm({ users: _users, ciba, ...realm }: ServerRealmConfig): RealmInput {
  if (ciba === undefined) return realm;
  const { authenticator: _authenticator, ...coreCiba } = ciba;
  return { ...realm, ciba: coreCiba };
}

/**
 * Core's cross-field rules (unknown scopes, resources without a client...) and unique names,
 * and the server's: the authenticator answers CIBA requests through the admin API.
 */
function crossFieldIssues(input: unknown): ConfigIssue[] {
  const realms = wellFormedRealms(input);
  const entries = realms.map(({ index, realm }) => ({
    path: `realms[${index}]`,
    input: providerRealm(realm),
  }));
  const hasAdminToken =
    typeof input === 'object' && input !== null && 'admin_token' in input
      ? input.admin_token !== undefined
      : false;
  const adminIssues = hasAdminToken
    ? []
    : realms
        .filter(({ realm }) => realm.ciba !== undefined)
        .map(({ index }) => ({
          path: `realms[${index}].ciba`,
          message: 'needs admin_token: the authenticator approves or denies through the admin API',
        }));
  return [...validateRealms(entries).issues, ...adminIssues];
}

function wellFormedRealms(input: unknown): { index: number; realm: ServerRealmConfig }[] {
  const realms =
    typeof input === 'object' && input !== null
      ? (input as { realms?: unknown }).realms
      : undefined;
  if (!Array.isArray(realms)) return [];
  return realms.flatMap((candidate, index) => {
    const parsed = serverRealmSchema.safeParse(candidate);
    return parsed.success ? [{ index, realm: parsed.data }] : [];
  });
}

/** The file could not be read or is not JSON: nothing to list path by path. */
export class ConfigFileError extends Error {
  override name = 'ConfigFileError';
}

/** Reads, parses and validates a config file. Throws ConfigFileError or ConfigError. */
export async function loadConfig(file: string): Promise<ServerConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigFileError(`cannot read config file "${file}" (${reason})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigFileError(`${file}: invalid JSON: ${describeJsonError(error as SyntaxError)}`);
  }
  return parseServerConfig(json);
}

/** V8 quotes a slice of the input in some messages; the file holds secrets, so that slice goes. */
function describeJsonError(error: SyntaxError): string {
  return error.message.replace(/, (\.\.\.)?".*" is not valid JSON$/s, '');
}
