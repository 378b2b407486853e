import { readFile } from 'node:fs/promises';
import {
  baseUrlSchema,
  ConfigError,
  type ConfigIssue,
  MEMORY_STORE_DEFAULT_MAX_BYTES,
  parsedRealm,
  providerLimitsSchema,
  type RealmConfig,
  realmSchema,
  salvage,
  validateRealms,
  zodIssues,
} from '@gatehouse-oidc/core';
import { tablePrefixProblem } from '@gatehouse-oidc/store-postgres';
import { keyPrefixProblem } from '@gatehouse-oidc/store-redis';
import { z } from 'zod';
import {
  DEFAULT_MAX_CONCURRENT_PER_REALM,
  DEFAULT_MAX_QUEUED_PER_REALM,
} from '../ciba/webhook-push.js';
import { parseStoreValue, type StoreKind } from '../store.js';
import { DEFAULT_IPV6_PREFIX_LENGTH } from '../throttle/address-key.js';
import { httpLimitsSchema } from './http-limits.js';
import { depthProblem } from './json-depth.js';
import { usersSchema } from './users.js';

export const MIN_SECRET_LENGTH = 32;

const storeSchema = z
  .string()
  .default('memory')
  .superRefine((value, ctx) => {
    // The value may be a URL with a password in it: never echo it.
    const parsed = parseStoreValue(value);
    if ('problem' in parsed) ctx.addIssue({ code: 'custom', message: parsed.problem });
  })
  .describe(
    '"memory", or the URL of a PostgreSQL server (or primary and standbys), Redis server, Redis Cluster or Sentinel group shared by every instance.',
  );

/** A rule of a store package as a schema refinement, so the two can never disagree. */
const storeRule =
  (problemOf: (value: string) => string | undefined) => (value: string, ctx: z.RefinementCtx) => {
    const problem = problemOf(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  };

/** The settings of each store; each applies to the kinds of store listed in STORE_SETTINGS. */
const storeOptionsSchema = z.strictObject({
  table_prefix: z
    .string()
    .superRefine(storeRule(tablePrefixProblem))
    .optional()
    .describe('PostgreSQL: prefix of the table and sequence names. Default "gatehouse_".'),
  pool_size: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .optional()
    .describe('PostgreSQL: connections per instance. Default 10.'),
  timeout_ms: z
    .number()
    .int()
    .min(1)
    .max(60_000)
    .optional()
    .describe(
      'How long a store call may take, connecting included, before the request answers 503. Default 2000 (PostgreSQL), 1000 (Redis).',
    ),
  key_prefix: z
    .string()
    .superRefine(storeRule(keyPrefixProblem))
    .optional()
    .describe('Redis: put before every key. Default "gatehouse:".'),
  wait_for_replicas: z
    .number()
    .int()
    .min(0)
    .max(16)
    .optional()
    .describe(
      "Redis: how many of a primary's connected replicas must acknowledge a write before it counts as done, so a failover cannot revive a used code or a revoked token. Default 1 on a Cluster or Sentinel group, 0 on one server.",
    ),
  max_bytes: z
    .number()
    .int()
    .min(1024 * 1024)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe(
      `Memory: the most the records may take (estimated); past it the oldest records anonymous requests left are dropped, then writes answer 503. Default ${MEMORY_STORE_DEFAULT_MAX_BYTES} (256 MiB).`,
    ),
  migrate_on_start: z
    .boolean()
    .default(true)
    .describe(
      'PostgreSQL: `gatehouse serve` creates whatever schema is missing before it listens, as `gatehouse migrate` does (safe when several instances start at once); false leaves that to `gatehouse migrate`.',
    ),
});

const STORE_SETTINGS: Readonly<Record<keyof z.input<typeof storeOptionsSchema>, StoreKind[]>> = {
  table_prefix: ['postgres'],
  pool_size: ['postgres'],
  timeout_ms: ['postgres', 'redis'],
  key_prefix: ['redis'],
  wait_for_replicas: ['redis'],
  max_bytes: ['memory'],
  migrate_on_start: ['postgres'],
};

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

const { interactionsPerRealm, logoutConfirmationsPerRealm, deviceRequestsPerRealm } =
  providerLimitsSchema.shape;

/** Core's limits on what anonymous requests store, in the config file's snake_case. */
const limitsSchema = z
  .strictObject({
    interactions_per_realm: interactionsPerRealm,
    logout_confirmations_per_realm: logoutConfirmationsPerRealm,
    device_requests_per_realm: deviceRequestsPerRealm,
    ciba_pushes_at_once: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(DEFAULT_MAX_CONCURRENT_PER_REALM)
      .describe('CIBA webhook pushes one realm delivers at once, retries included.'),
    ciba_pushes_queued: z
      .number()
      .int()
      .min(0)
      .max(100_000)
      .default(DEFAULT_MAX_QUEUED_PER_REALM)
      .describe(
        'CIBA pushes one realm keeps waiting; while they are all taken, its backchannel requests get 503.',
      ),
  })
  .prefault({})
  .describe(
    'Bounds on what requests nobody authenticated make the server store (docs/security.md).',
  );

export const serverRealmSchema = realmSchema.extend({
  users: usersSchema,
  ciba: serverCibaSchema
    .optional()
    .describe(
      'Backchannel authentication (CIBA, poll mode): pushed to the webhook, answered through the admin API.',
    ),
});

/** Everything in the file but its realms. */
const settingsSchema = z.strictObject({
  base_url: baseUrlSchema.describe('Public origin; the issuer of realm R is `{base_url}/oauth/R`.'),
  port: z.number().int().min(0).max(65_535).default(3000),
  host: z.string().min(1).default('127.0.0.1'),
  store: storeSchema,
  store_options: storeOptionsSchema
    .prefault({})
    .describe('Settings of the store `store` names; each applies to some kinds of store only.'),
  admin_token: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Bearer token for /admin/*; absent turns the admin API off. At least 32 characters, unless allow_short_admin_token is set.',
    ),
  allow_short_admin_token: z
    .boolean()
    .default(false)
    .describe(
      'Accept an admin_token shorter than 32 characters (the contract’s `change-me`): local development only.',
    ),
  cookie_secret: secret(
    'Keys the CSRF tokens of the login and consent forms and encrypts the client secrets of realms written through the admin API; instances behind one base_url share it. Absent: a random key per process.',
  ).optional(),
  limits: limitsSchema,
  trust_proxy: z
    .boolean()
    .default(false)
    .describe(
      'The server sits behind one reverse proxy that appends the client address to X-Forwarded-For: the login and admin throttles count that address rather than the proxy’s. Leave false when clients can reach the server directly, or they could pick their address.',
    ),
  ipv6_prefix_length: z
    .number()
    .int()
    .min(32)
    .max(128)
    .default(DEFAULT_IPV6_PREFIX_LENGTH)
    .describe(
      'Leading bits of an IPv6 address that the login and admin throttles count as one address: one host usually has a whole /64.',
    ),
  http_limits: httpLimitsSchema
    .prefault({})
    .describe('Timeouts and header size of every connection (docs/standalone-server.md).'),
  print_credentials: z
    .boolean()
    .default(false)
    .describe('Print every client secret and user password at start: local development only.'),
});

const realmsSchema = z.array(serverRealmSchema).min(1, 'must list at least one realm');

export const serverConfigSchema = settingsSchema.extend({ realms: realmsSchema });

export type ServerConfigInput = z.input<typeof serverConfigSchema>;
export type ServerConfig = z.output<typeof serverConfigSchema>;
export type ServerRealmConfig = ServerConfig['realms'][number];

/**
 * Validates a parsed config file and throws a ConfigError listing every problem: of its shape,
 * of the cross-field rules on what has the right shape, and of the server's own checks.
 */
export function parseServerConfig(input: unknown): ServerConfig {
  const settings = settingsSchema.extend({ realms: z.unknown() }).safeParse(input);
  const file = isObject(input) ? input : undefined;
  const realms = file && salvage(realmsSchema, file.realms, 'realms');
  const hasAdminToken = file?.admin_token !== undefined;
  const issues = [
    ...(settings.success ? [] : zodIssues(settings.error)),
    ...(realms?.issues ?? []),
    ...(realms?.value ? realms.inInput(realmRuleIssues(realms.value, hasAdminToken)) : []),
    ...adminTokenIssues(input),
    ...storeSettingIssues(input),
  ];
  if (!settings.success || !realms?.value || issues.length > 0) throw new ConfigError(issues);
  return { ...settings.data, realms: realms.value };
}

/**
 * The realm as core's provider takes it, without the server-only keys. Parsed already (by the
 * server's schema, which extends core's), it is marked so: core checks its cross-field rules
 * without parsing it again.
 */
export function providerRealm({ users: _users, ciba, ...realm }: ServerRealmConfig): RealmConfig {
  if (ciba === undefined) return parsedRealm(realm);
  const { authenticator: _authenticator, ...coreCiba } = ciba;
  return parsedRealm({ ...realm, ciba: coreCiba });
}

/**
 * Core's cross-field rules (unknown scopes, resources without a client...) and unique names,
 * and the server's: the authenticator answers CIBA requests through the admin API. Paths are
 * relative to the realms.
 */
function realmRuleIssues(
  realms: readonly ServerRealmConfig[],
  hasAdminToken: boolean,
): ConfigIssue[] {
  const entries = realms.map((realm, index) => ({
    path: `[${index}]`,
    input: providerRealm(realm),
  }));
  const adminIssues = hasAdminToken
    ? []
    : realms.flatMap((realm, index) =>
        realm.ciba === undefined
          ? []
          : [
              {
                path: `[${index}].ciba`,
                message:
                  'needs admin_token: the authenticator approves or denies through the admin API',
              },
            ],
      );
  return [...validateRealms(entries).issues, ...adminIssues];
}

/** A short admin_token can be guessed; only a config that says it is for development may have one. */
function adminTokenIssues(input: unknown): ConfigIssue[] {
  if (typeof input !== 'object' || input === null) return [];
  const { admin_token: token, allow_short_admin_token: allowShort } = input as Record<
    string,
    unknown
  >;
  if (typeof token !== 'string' || token.length === 0 || token.length >= MIN_SECRET_LENGTH) {
    return [];
  }
  if (allowShort === true) return [];
  return [
    {
      path: 'admin_token',
      message: `must be at least ${MIN_SECRET_LENGTH} characters (set allow_short_admin_token for local development)`,
    },
  ];
}

/** Settings in `store_options` that the store `store` names does not have. */
function storeSettingIssues(input: unknown): ConfigIssue[] {
  if (typeof input !== 'object' || input === null) return [];
  const { store = 'memory', store_options: settings } = input as Record<string, unknown>;
  if (typeof store !== 'string' || typeof settings !== 'object' || settings === null) return [];
  const parsed = parseStoreValue(store);
  if ('problem' in parsed) return [];
  return Object.keys(settings).flatMap((name) => {
    const kinds = STORE_SETTINGS[name as keyof typeof STORE_SETTINGS];
    if (kinds === undefined || kinds.includes(parsed.kind)) return [];
    return [
      {
        path: `store_options.${name}`,
        message: `applies to ${kinds.map((kind) => (kind === 'memory' ? kind : `${kind}://`)).join(' and ')} stores only, not to the ${parsed.kind} store`,
      },
    ];
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
  const tooDeep = depthProblem(json);
  if (tooDeep) throw new ConfigFileError(`${file}: invalid JSON: ${tooDeep}`);
  return parseServerConfig(json);
}

/** V8 quotes a slice of the input in some messages; the file holds secrets, so that slice goes. */
function describeJsonError(error: SyntaxError): string {
  return error.message.replace(/, (\.\.\.)?".*" is not valid JSON$/s, '');
}
