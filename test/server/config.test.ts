import { ConfigError, type ConfigIssue } from '@gatehouse-oidc/core';
import { ConfigFileError, loadConfig, parseServerConfig } from '@gatehouse-oidc/server';
import { afterAll, describe, expect, it } from 'vitest';
import { BOB_PASSWORD_HASH, configDir, validConfig, withChanges } from './support.js';

function issuesOf(input: unknown): readonly ConfigIssue[] {
  try {
    parseServerConfig(input);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected the config to be rejected');
}

const user0 = 'realms.0.users.0';

/** Each case changes one thing in a valid config and expects exactly that problem. */
const INVALID: { name: string; changes: Record<string, unknown>; path: string; message: string }[] =
  [
    {
      name: 'unknown top-level key',
      changes: { prot: 3000 },
      path: '',
      message: 'Unrecognized key: "prot"',
    },
    {
      name: 'a client metadata document host pattern in the middle of a name',
      changes: {
        'realms.0.client_id_metadata_documents': { enabled: true, allowed_hosts: ['agent.*.com'] },
      },
      path: 'realms[0].client_id_metadata_documents.allowed_hosts[0]',
      message: 'must be a host name in lower case',
    },
    {
      name: 'client metadata document cache bounds the wrong way round',
      changes: {
        'realms.0.client_id_metadata_documents': {
          enabled: true,
          cache_seconds: { min: 600, max: 60 },
        },
      },
      path: 'realms[0].client_id_metadata_documents.cache_seconds.min',
      message: 'min must not exceed max',
    },
    {
      name: 'a registration with neither an initial access token nor open',
      changes: { 'realms.0.registration': { max_clients: 10 } },
      path: 'realms[0].registration',
      message: 'needs initial_access_token or open: true',
    },
    {
      name: 'registration offering client_secret_jwt',
      changes: {
        'realms.0.registration': { open: true, token_endpoint_auth_methods: ['client_secret_jwt'] },
      },
      path: 'realms[0].registration.token_endpoint_auth_methods[0]',
      message: 'Invalid option',
    },
    {
      name: 'registration offering a scope the realm lacks',
      changes: { 'realms.0.registration': { open: true, scopes: ['admin'] } },
      path: 'realms[0].registration.scopes[0]',
      message: 'names unknown scope "admin"',
    },
    {
      name: 'base_url not http(s)',
      changes: { base_url: 'ftp://x' },
      path: 'base_url',
      message: 'must be an absolute http(s) URL',
    },
    {
      name: 'port of the wrong type',
      changes: { port: '3000' },
      path: 'port',
      message: 'expected number',
    },
    { name: 'port out of range', changes: { port: 70_000 }, path: 'port', message: '65535' },
    { name: 'empty host', changes: { host: '' }, path: 'host', message: 'Too small' },
    {
      name: 'unknown store',
      changes: { store: 'mysql://db' },
      path: 'store',
      message: 'must be "memory", a postgres:// URL or a redis:// URL',
    },
    {
      name: 'store that is not a URL',
      changes: { store: 'db.internal:5432' },
      path: 'store',
      message: 'must be "memory", a postgres:// URL or a redis:// URL',
    },
    {
      name: 'redis store without a host',
      changes: { store: 'redis://' },
      path: 'store',
      message: 'a redis:// URL must name a host',
    },
    {
      name: 'unknown store setting',
      changes: { store: 'postgres://db/gatehouse', store_options: { tablePrefix: 'x_' } },
      path: 'store_options',
      message: 'Unrecognized key: "tablePrefix"',
    },
    {
      name: 'table_prefix PostgreSQL would fold or refuse',
      changes: { store: 'postgres://db/gatehouse', store_options: { table_prefix: 'Auth.' } },
      path: 'store_options.table_prefix',
      message: 'must be lower-case letters, digits and underscores, not starting with a digit',
    },
    {
      name: 'table_prefix too long for PostgreSQL identifiers',
      changes: {
        store: 'postgres://db/gatehouse',
        store_options: { table_prefix: 'p'.repeat(46) },
      },
      path: 'store_options.table_prefix',
      message: 'is too long',
    },
    {
      name: 'pool_size of zero',
      changes: { store: 'postgres://db/gatehouse', store_options: { pool_size: 0 } },
      path: 'store_options.pool_size',
      message: 'Too small',
    },
    {
      name: 'timeout_ms that is not an integer',
      changes: { store: 'redis://cache:6379', store_options: { timeout_ms: 1.5 } },
      path: 'store_options.timeout_ms',
      message: 'expected int',
    },
    {
      name: 'key_prefix with a Redis Cluster hash tag',
      changes: { store: 'redis://cache:6379', store_options: { key_prefix: 'app{1}:' } },
      path: 'store_options.key_prefix',
      message: 'must not contain { or }',
    },
    {
      name: 'a PostgreSQL setting on a Redis store',
      changes: { store: 'redis://cache:6379', store_options: { migrate_on_start: true } },
      path: 'store_options.migrate_on_start',
      message: 'applies to postgres:// stores only, not to the redis store',
    },
    {
      name: 'a Redis setting on a PostgreSQL store',
      changes: { store: 'postgresql://db/gatehouse', store_options: { key_prefix: 'a:' } },
      path: 'store_options.key_prefix',
      message: 'applies to redis:// stores only, not to the postgres store',
    },
    {
      name: 'a replica count on a PostgreSQL store',
      changes: { store: 'postgresql://db/gatehouse', store_options: { wait_for_replicas: 1 } },
      path: 'store_options.wait_for_replicas',
      message: 'applies to redis:// stores only, not to the postgres store',
    },
    {
      name: 'more replicas awaited than Redis can have in reason',
      changes: { store: 'redis+cluster://c1:7000', store_options: { wait_for_replicas: 17 } },
      path: 'store_options.wait_for_replicas',
      message: 'expected number to be <=16',
    },
    {
      name: 'a store setting on the memory store',
      changes: { store_options: { timeout_ms: 100 } },
      path: 'store_options.timeout_ms',
      message: 'applies to postgres:// and redis:// stores only, not to the memory store',
    },
    {
      name: 'the memory ceiling on a Redis store',
      changes: { store: 'redis://cache:6379', store_options: { max_bytes: 1024 * 1024 * 1024 } },
      path: 'store_options.max_bytes',
      message: 'applies to memory stores only, not to the redis store',
    },
    {
      name: 'a memory ceiling below 1 MiB',
      changes: { store_options: { max_bytes: 1000 } },
      path: 'store_options.max_bytes',
      message: 'Too small',
    },
    {
      name: 'a realm cap of no interaction',
      changes: { limits: { interactions_per_realm: 0 } },
      path: 'limits.interactions_per_realm',
      message: 'Too small',
    },
    {
      name: 'no CIBA push at once',
      changes: { limits: { ciba_pushes_at_once: 0 } },
      path: 'limits.ciba_pushes_at_once',
      message: 'Too small',
    },
    {
      name: 'an unknown limit',
      changes: { limits: { interactionsPerRealm: 5 } },
      path: 'limits',
      message: 'interactionsPerRealm',
    },
    {
      name: 'empty admin_token',
      changes: { admin_token: '' },
      path: 'admin_token',
      message: 'Too small',
    },
    {
      name: 'admin_token shorter than 32 characters',
      changes: { admin_token: 'change-me' },
      path: 'admin_token',
      message: 'must be at least 32 characters (set allow_short_admin_token for local development)',
    },
    {
      name: 'ipv6_prefix_length below 32',
      changes: { ipv6_prefix_length: 16 },
      path: 'ipv6_prefix_length',
      message: 'Too small',
    },
    {
      name: 'http_limits with an unknown key',
      changes: { http_limits: { body_timeout_ms: 5 } },
      path: 'http_limits',
      message: 'Unrecognized key: "body_timeout_ms"',
    },
    {
      name: 'a timeout of 0 (none)',
      changes: { http_limits: { headers_timeout_ms: 0 } },
      path: 'http_limits.headers_timeout_ms',
      message: 'Too small',
    },
    {
      name: 'short cookie_secret',
      changes: { cookie_secret: 'short' },
      path: 'cookie_secret',
      message: 'must be at least 32 characters',
    },
    {
      name: 'print_credentials not boolean',
      changes: { print_credentials: 'yes' },
      path: 'print_credentials',
      message: 'expected boolean',
    },
    {
      name: 'trust_proxy not boolean',
      changes: { trust_proxy: 'loopback' },
      path: 'trust_proxy',
      message: 'expected boolean',
    },
    {
      name: 'no realm',
      changes: { realms: [] },
      path: 'realms',
      message: 'must list at least one realm',
    },
    {
      name: 'unknown realm key',
      changes: { 'realms.0.colour': 'blue' },
      path: 'realms[0]',
      message: 'Unrecognized key: "colour"',
    },
    {
      name: 'ciba without its authenticator',
      changes: { 'realms.0.ciba': { interval: 5 } },
      path: 'realms[0].ciba.authenticator',
      message: 'is required: the server reaches the authenticator through its webhook_url',
    },
    {
      name: 'bad realm name',
      changes: { 'realms.0.name': 'a/b' },
      path: 'realms[0].name',
      message: 'must be 1 to 64 letters',
    },
    {
      name: 'relative redirect URI',
      changes: { 'realms.0.clients.2.redirect_uris': ['/cb'] },
      path: 'realms[0].clients[2].redirect_uris[0]',
      message: 'must be an absolute URL',
    },
    {
      name: 'unknown auth method',
      changes: { 'realms.0.clients.0.token_endpoint_auth_method': 'magic' },
      path: 'realms[0].clients[0].token_endpoint_auth_method',
      message: 'Invalid option',
    },
    {
      name: 'client naming an unknown scope',
      changes: { 'realms.0.clients.0.scope': 'api:read admin' },
      path: 'realms[0].clients[0].scope',
      message: 'names unknown scope "admin"',
    },
    {
      name: 'resource with no client',
      changes: { 'realms.0.resources.0.client_id': 'nobody' },
      path: 'realms[0].resources[0].client_id',
      message: 'names unknown client "nobody"',
    },
    {
      name: 'duplicate client_id',
      changes: { 'realms.0.clients.1.client_id': 'service', 'realms.0.resources': [] },
      path: 'realms[0].clients[1].client_id',
      message: 'duplicate client_id "service"',
    },
    {
      name: 'secret method without a secret',
      changes: { 'realms.0.clients.0.client_secret': undefined },
      path: 'realms[0].clients[0].client_secret',
      message: 'is required for client_secret_post',
    },
    {
      name: 'duplicate realm',
      changes: { 'realms.1': validConfig().realms[0] },
      path: 'realms[1].name',
      message: 'duplicate realm "demo"',
    },
    {
      name: 'user without password',
      changes: { [`${user0}.password`]: undefined },
      path: 'realms[0].users[0].password',
      message: 'or password_hash is required',
    },
    {
      name: 'user with password and hash',
      changes: { [`${user0}.password_hash`]: BOB_PASSWORD_HASH },
      path: 'realms[0].users[0].password_hash',
      message: 'must not be set together with password',
    },
    {
      name: 'short password',
      changes: { [`${user0}.password`]: 'alice' },
      path: 'realms[0].users[0].password',
      message: 'must be at least 8 characters',
    },
    {
      name: 'hash of another kind',
      changes: { 'realms.0.users.1.password_hash': '$2b$10$abcdefghijklmnopqrstuv' },
      path: 'realms[0].users[1].password_hash',
      message: 'must have the form scrypt$<N>$<r>$<p>$<salt>$<key>',
    },
    {
      name: 'hash too cheap',
      changes: { 'realms.0.users.1.password_hash': BOB_PASSWORD_HASH.replace('16384', '1024') },
      path: 'realms[0].users[1].password_hash',
      message: 'N must be a power of 2 of at least 16384',
    },
    {
      name: 'hash too costly',
      changes: { 'realms.0.users.1.password_hash': BOB_PASSWORD_HASH.replace('$8$', '$256$') },
      path: 'realms[0].users[1].password_hash',
      message: 'needs more than 256 MiB',
    },
    {
      name: 'hash with a short salt',
      changes: {
        'realms.0.users.1.password_hash': BOB_PASSWORD_HASH.replace(
          '6iWVsYMMfx2w6t1jB49U6g',
          'c2FsdA',
        ),
      },
      path: 'realms[0].users[1].password_hash',
      message: 'the salt must be at least 16 bytes',
    },
    {
      name: 'duplicate username',
      changes: { 'realms.0.users.1.username': 'alice' },
      path: 'realms[0].users[1].username',
      message: 'duplicate username "alice"',
    },
    {
      name: 'duplicate sub',
      changes: { 'realms.0.users.1.sub': 'alice' },
      path: 'realms[0].users[1].sub',
      message: 'duplicate sub "alice"',
    },
    {
      name: 'user sub with a space',
      changes: { [`${user0}.sub`]: 'alice liddell' },
      path: 'realms[0].users[0].sub',
      message: 'printable ASCII',
    },
    {
      name: 'reserved claim',
      changes: { [`${user0}.claims`]: { sub: 'root' } },
      path: 'realms[0].users[0].claims.sub',
      message: 'is set by the provider',
    },
    {
      name: 'claims not an object',
      changes: { [`${user0}.claims`]: ['name'] },
      path: 'realms[0].users[0].claims',
      message: 'expected record',
    },
    {
      name: 'unknown user key',
      changes: { [`${user0}.role`]: 'admin' },
      path: 'realms[0].users[0]',
      message: 'Unrecognized key: "role"',
    },
  ];

describe('server config', () => {
  it('accepts the valid base config and fills in the server defaults', () => {
    const config = parseServerConfig(withChanges(validConfig(), { admin_token: undefined }));
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      store: 'memory',
      print_credentials: false,
      trust_proxy: false,
    });
    expect(config.admin_token).toBeUndefined();
    expect(config.ipv6_prefix_length).toBe(64);
    expect(config.http_limits).toEqual({
      headers_timeout_ms: 10_000,
      request_timeout_ms: 30_000,
      keep_alive_timeout_ms: 5_000,
      idle_timeout_ms: 60_000,
      max_header_bytes: 16_384,
    });
    expect(config.realms[0]?.users[1]?.claims).toEqual({});
    expect(config.store_options).toEqual({ migrate_on_start: true });
    expect(config.limits).toEqual({
      interactions_per_realm: 10_000,
      logout_confirmations_per_realm: 1_000,
      device_requests_per_realm: 10_000,
      ciba_pushes_at_once: 8,
      ciba_pushes_queued: 100,
    });
  });

  it.each([
    [
      'postgres://gatehouse:pw@db.internal:5432/auth?sslmode=require',
      { table_prefix: 'auth_', pool_size: 20, timeout_ms: 1500, migrate_on_start: false },
    ],
    ['postgresql:///auth', {}],
    ['redis://:pw@cache.internal:6379/2', { key_prefix: 'idp:', timeout_ms: 250 }],
    ['rediss://cache.internal', {}],
    ['memory', { max_bytes: 64 * 1024 * 1024 }],
  ])('accepts the store %s with its settings', (store, storeOptions) => {
    const config = parseServerConfig(
      withChanges(validConfig(), { store, store_options: storeOptions }),
    );
    expect(config.store).toBe(store);
    expect(config.store_options).toEqual({ migrate_on_start: true, ...storeOptions });
  });

  it.each(INVALID)('rejects $name at $path', ({ changes, path, message }) => {
    const issues = issuesOf(withChanges(validConfig(), changes));
    expect(issues).toEqual([{ path, message: expect.stringContaining(message) }]);
  });

  it('lists every problem, not just the first', () => {
    const issues = issuesOf(
      withChanges(validConfig(), {
        port: -1,
        'realms.0.clients.2.redirect_uris': ['cb'],
        [`${user0}.role`]: 1,
      }),
    );
    expect(issues.map((issue) => issue.path).sort()).toEqual([
      'port',
      'realms[0].clients[2].redirect_uris[0]',
      'realms[0].users[0]',
    ]);
  });

  it('checks the cross-field rules of well-formed realms even when other parts are malformed', () => {
    const second = withChanges(validConfig().realms[0] as object, {
      name: 'other',
      'clients.0.scope': 'nope',
    });
    const third = withChanges(validConfig().realms[0] as object, {
      name: 3,
      'clients.0.scope': 'nope',
    });
    const issues = issuesOf(
      withChanges(validConfig(), {
        port: 'x',
        'realms.0.resources.0.client_id': 'x',
        'realms.1': second,
        'realms.2': third,
      }),
    );
    expect(issues.map((issue) => issue.path)).toEqual([
      'port',
      'realms[2].name',
      'realms[0].resources[0].client_id',
      'realms[1].clients[0].scope',
    ]);
  });

  it.each([
    { store: 'mysql://gatehouse:hunter2@db/gatehouse' },
    { store: 'redis://:hunter2@' },
    { store: 'postgres://gatehouse:hunter2@db/gatehouse', store_options: { key_prefix: 'a:' } },
  ])('never echoes a store URL, which may carry a password: %o', (changes) => {
    const issues = issuesOf(withChanges(validConfig(), changes));
    expect(issues).toHaveLength(1);
    expect(JSON.stringify(issues)).not.toContain('hunter2');
  });
});

describe('user claims', () => {
  it('are refused nesting deeper than 32 levels, at their path', () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 5000; level += 1) deep = { level: deep };
    const issues = issuesOf(withChanges(validConfig(), { 'realms.0.users.0.claims': { deep } }));
    expect(issues).toEqual([
      {
        path: 'realms[0].users[0].claims',
        message: 'nests objects and arrays more than 32 levels deep',
      },
    ]);
  });
});

describe('loadConfig', () => {
  const dir = configDir();
  afterAll(() => dir.remove());

  it('reads and validates a file', async () => {
    const config = await loadConfig(dir.write('ok.json', validConfig()));
    expect(config.realms.map((realm) => realm.name)).toEqual(['demo']);
  });

  it('reports a missing file with its name and reason', async () => {
    const missing = dir.path('missing.json');
    await expect(loadConfig(missing)).rejects.toThrow(
      new ConfigFileError(`cannot read config file "${missing}" (ENOENT)`),
    );
  });

  it('reports bad JSON without quoting the file, which holds secrets', async () => {
    const file = dir.write(
      'bad.json',
      '{"admin_token": "secret-secret-secret-secret-secret!", "port": ]}',
    );
    const error = await loadConfig(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigFileError);
    expect((error as Error).message).toMatch(
      new RegExp(`^${file}: invalid JSON: Unexpected token`),
    );
    expect((error as Error).message).not.toContain('secret');
  });

  it('refuses a file nesting deeper than 32 levels before validating it', async () => {
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const file = dir.write('deep.json', `{"realms":[{"users":[{"claims":{"x":${deep}}}]}]}`);
    await expect(loadConfig(file)).rejects.toThrow(
      new ConfigFileError(
        `${file}: invalid JSON: nests objects and arrays more than 32 levels deep`,
      ),
    );
  });

  it('throws a ConfigError for a well-formed file with invalid content', async () => {
    await expect(
      loadConfig(dir.write('invalid.json', { base_url: 'x', realms: [] })),
    ).rejects.toBeInstanceOf(ConfigError);
  });
});
