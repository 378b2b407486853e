import { ConfigError } from '@gatehouse-oidc/core';
import { describe, expect, it } from 'vitest';
import { decodeKey, encodeKey } from './key-encoding.js';
import { type PostgresStoreOptions, resolveOptions } from './options.js';

const connectionString = 'postgres://gatehouse:s3cret-password@db.internal:5432/auth';
const CONNECTION_STRING_PROBLEM =
  'must be a postgres:// or postgresql:// URL (several hosts as host:port,host:port; target_session_attrs any or read-write)';

function issues(options: PostgresStoreOptions) {
  try {
    resolveOptions(options);
  } catch (error) {
    if (error instanceof ConfigError) return error;
  }
  throw new Error('expected a ConfigError');
}

describe('PostgreSQL store options', () => {
  it('fills in the defaults', () => {
    expect(resolveOptions({ connectionString })).toEqual({
      connectionString,
      tablePrefix: 'gatehouse_',
      poolSize: 10,
      statementTimeoutMs: 2_000,
      sweepIntervalMs: 60_000,
    });
    expect(
      resolveOptions({ connectionString: 'postgresql://db/auth', tablePrefix: undefined })
        .tablePrefix,
    ).toBe('gatehouse_');
  });

  it.each([
    ['Gatehouse_', 'must be lower-case letters, digits and underscores, not starting with a digit'],
    ['1st_', 'must be lower-case letters, digits and underscores, not starting with a digit'],
    [
      'auth.gatehouse_',
      'must be lower-case letters, digits and underscores, not starting with a digit',
    ],
    ['', 'must be lower-case letters, digits and underscores, not starting with a digit'],
    [
      `${'p'.repeat(45)}_`,
      `is too long: "${'p'.repeat(45)}_records_expires_at" exceeds PostgreSQL's 63-byte identifiers`,
    ],
  ])('refuses the table prefix %j', (tablePrefix, message) => {
    expect(issues({ connectionString, tablePrefix }).issues).toEqual([
      { path: 'tablePrefix', message },
    ]);
  });

  it('accepts the longest prefix whose names fit in an identifier', () => {
    const tablePrefix = `${'p'.repeat(44)}_`;
    expect(resolveOptions({ connectionString, tablePrefix }).tablePrefix).toBe(tablePrefix);
  });

  it('lists every invalid option, and never echoes the connection string', () => {
    const error = issues({
      connectionString: 'mysql://root:hunter2@db/auth',
      poolSize: 0,
      statementTimeoutMs: 1.5,
      sweepIntervalMs: -1,
    });
    expect(error.issues).toEqual([
      { path: 'connectionString', message: CONNECTION_STRING_PROBLEM },
      { path: 'poolSize', message: 'must be an integer from 1 to 1000' },
      { path: 'statementTimeoutMs', message: 'must be an integer from 1 to 600000' },
      { path: 'sweepIntervalMs', message: 'must be an integer from 0 (off) to 86400000' },
    ]);
    expect(error.message).not.toContain('hunter2');
  });

  it('refuses a connection string that is not a URL', () => {
    expect(issues({ connectionString: 'host=db dbname=auth' }).issues[0]?.path).toBe(
      'connectionString',
    );
  });
});

describe('key encoding', () => {
  it('stores ordinary keys as they are', () => {
    for (const key of ['access_token', 'demo/AbC-_09', 'a:b', 'ä €', 'emoji \uD83D\uDE00', ''])
      expect(encodeKey(key)).toBe(key);
  });

  it('escapes keys PostgreSQL text cannot hold, one-to-one and reversibly', () => {
    const awkward = [
      '\u0000',
      'a\u0000',
      '\uD800',
      '\uDFFF',
      'x\uDC00\uD800',
      '\u0001',
      '\u0001"\\u0000"',
    ];
    const encoded = awkward.map(encodeKey);
    for (const stored of encoded) {
      expect(stored.startsWith('\u0001')).toBe(true);
      expect(stored).not.toContain('\u0000');
      expect(stored).not.toMatch(/[\uD800-\uDFFF]/);
    }
    expect(new Set(encoded).size).toBe(awkward.length);
    expect(encoded.map(decodeKey)).toEqual(awkward);
  });
});
