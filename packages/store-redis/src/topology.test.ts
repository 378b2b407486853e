import { describe, expect, it } from 'vitest';
import { parseRedisUrl } from './topology.js';

describe('parseRedisUrl', () => {
  it('takes a single server as it is', () => {
    expect(parseRedisUrl('rediss://:pw@cache:6380/1')).toEqual({
      kind: 'standalone',
      url: 'rediss://:pw@cache:6380/1',
    });
  });

  it('reads the seed nodes of a Cluster, with credentials, IPv6 and TLS', () => {
    expect(parseRedisUrl('rediss+cluster://app:p%40ss@10.0.0.1:7000,[::1]:7001,cache-3')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '::1', port: 7001 },
        { host: 'cache-3', port: 6379 },
      ],
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
  });

  it('reads the sentinels, the group and the database of a Sentinel URL', () => {
    expect(parseRedisUrl('redis+sentinel://:pw@s1,s2:26380/main%20group/2')).toEqual({
      kind: 'sentinel',
      nodes: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26380 },
      ],
      password: 'pw',
      tls: false,
      group: 'main group',
      db: 2,
    });
  });

  it.each([
    'redis://',
    'http://cache:6379',
    'redis+cluster://',
    'redis+cluster://a:7000,,b:7001',
    'redis+cluster://a:70000',
    'redis+cluster://a:7000/0',
    'redis+sentinel://s1:26379',
    'redis+sentinel://s1:26379/group/db',
    'redis+sentinel://s1:26379/group/0/extra',
    'redis+cluster://%zz@a:7000',
    'redis+replicas://a:7000',
  ])('refuses %s', (url) => {
    expect(parseRedisUrl(url)).toBeUndefined();
  });
});
