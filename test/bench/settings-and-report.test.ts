import { describe, expect, it } from 'vitest';
import { type Measurement, ratioLines } from '../../bench/src/report.js';
import type { ServerName } from '../../bench/src/server-names.js';
import { readSettings } from '../../bench/src/settings.js';

describe('bench settings', () => {
  it('runs every scenario on every server by default', () => {
    expect(readSettings({})).toMatchObject({
      scenarios: ['client_credentials', 'authorization_code', 'refresh_token'],
      servers: ['ours', 'ceiling', 'oidc-provider'],
      poolRate: 12_000,
    });
  });

  it('BENCH_SCENARIOS and BENCH_SERVERS pick subsets in the order given', () => {
    const settings = readSettings({
      BENCH_SCENARIOS: 'refresh_token, authorization_code',
      BENCH_SERVERS: 'oidc-provider,ours',
      BENCH_POOL_RATE: '5000',
    });
    expect(settings).toMatchObject({
      scenarios: ['refresh_token', 'authorization_code'],
      servers: ['oidc-provider', 'ours'],
      poolRate: 5000,
    });
  });

  it('refuses unknown names and bad numbers', () => {
    expect(() => readSettings({ BENCH_SCENARIOS: 'implicit' })).toThrow(
      'BENCH_SCENARIOS: unknown name "implicit"',
    );
    expect(() => readSettings({ BENCH_SERVERS: 'ours,keycloak' })).toThrow(
      'BENCH_SERVERS: unknown name "keycloak"',
    );
    expect(() => readSettings({ BENCH_POOL_RATE: '0' })).toThrow(/BENCH_POOL_RATE/);
  });
});

describe('bench ratios', () => {
  const measured = (requestsPerSecond: number, serverCpuMicrosPerRequest: number): Measurement => ({
    requestsPerSecond,
    serverCpuMicrosPerRequest,
    loadCpuMicrosPerRequest: 30,
    p50Ms: 1,
    p99Ms: 2,
    ok: 1000,
    failures: 0,
  });
  const results = new Map<ServerName, Measurement>([
    ['ours', measured(9000, 120)],
    ['ceiling', measured(20_000, 40)],
    ['oidc-provider', measured(2500, 480)],
  ]);

  it('client_credentials: ratios against its targets, and the CPU-per-request ratio', () => {
    expect(ratioLines('client_credentials', results)).toEqual([
      'ours / ceiling           0.45   target >= 0.6   MISS',
      '  server CPU per request, ceiling / ours        0.33',
      'ours / oidc-provider     3.60   target >= 3     PASS',
      '  server CPU per request, oidc-provider / ours   4.00',
    ]);
  });

  it('the user grants have no target: the ratio alone', () => {
    const lines = ratioLines(
      'refresh_token',
      new Map([...results].filter(([n]) => n !== 'ceiling')),
    );
    expect(lines).toEqual([
      'ours / oidc-provider     3.60   (no target)',
      '  server CPU per request, oidc-provider / ours   4.00',
    ]);
  });
});
