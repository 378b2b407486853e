import { describe, expect, it } from 'vitest';
import { parseHosts } from './hosts.js';

describe('parseHosts', () => {
  it('leaves one host to pg, as it is', () => {
    expect(parseHosts('postgresql:///auth?sslmode=disable')).toEqual({
      connectionStrings: ['postgresql:///auth?sslmode=disable'],
      readWrite: false,
    });
  });

  it('makes one connection string per host, in order, keeping credentials and parameters', () => {
    expect(
      parseHosts(
        'postgres://app:s3cret@db-1:5432,[::1]:5433,db-3/auth?sslmode=require&target_session_attrs=read-write',
      ),
    ).toEqual({
      connectionStrings: [
        'postgres://app:s3cret@db-1:5432/auth?sslmode=require',
        'postgres://app:s3cret@[::1]:5433/auth?sslmode=require',
        'postgres://app:s3cret@db-3/auth?sslmode=require',
      ],
      readWrite: true,
    });
  });

  it.each([
    'mysql://db/auth',
    'postgres://db-1:5432,,db-2/auth',
    'postgres://db-1:5432,db-2:port/auth',
    'postgres://db-1,db-2/auth?target_session_attrs=standby',
  ])('refuses %s', (connectionString) => {
    expect(parseHosts(connectionString)).toBeUndefined();
  });
});
