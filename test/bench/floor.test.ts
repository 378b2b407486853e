import { describe, expect, it } from 'vitest';
import {
  floorLines,
  floorOf,
  floorRatios,
  measureCryptoCosts,
  medianFloorLines,
} from '../../bench/src/floor.js';
import type { Measurement } from '../../bench/src/report.js';
import type { ServerName } from '../../bench/src/server-names.js';

const costs = { signMicros: 30, verifyMicros: 70 };
const measured = (serverCpuMicrosPerRequest: number): Measurement => ({
  requestsPerSecond: 1000,
  serverCpuMicrosPerRequest,
  loadCpuMicrosPerRequest: 30,
  p50Ms: 1,
  p99Ms: 2,
  ok: 1000,
  failures: 0,
});

describe('a flow’s floor', () => {
  it('is the bare route plus the ES256 work the flow’s answer needs', () => {
    expect(floorOf('client_credentials', 40, costs)?.micros).toBe(70);
    expect(floorOf('authorization_code', 40, costs)?.micros).toBe(100);
    expect(floorOf('refresh_token', 40, costs)?.micros).toBe(100);
    expect(floorOf('ciba_initiation', 40, costs)?.micros).toBe(110);
  });

  it('prints the floor, then each server but the ceiling as a multiple of it', () => {
    const results = new Map<ServerName, Measurement>([
      ['ours', measured(105)],
      ['ceiling', measured(40)],
      ['oidc-provider', measured(420)],
    ]);
    expect(floorLines(floorOf('client_credentials', 40, costs), results)).toEqual([
      'floor                            70 µs server CPU/req (bare route 40 + 1 ES256 signature × 30)',
      'ours / floor                   1.50   (105 µs)',
      'oidc-provider / floor          6.00   (420 µs)',
    ]);
    expect(floorLines(floorOf('ciba_initiation', 40, costs), results)[0]).toBe(
      'floor                           110 µs server CPU/req (bare route 40 + 1 ES256 verification × 70)',
    );
  });

  it('sums up rounds as each server’s median multiple of its round’s floor', () => {
    const rounds = [
      [40, 105],
      [25, 70],
      [60, 150],
    ].map(([bareRoute, ours]) =>
      floorRatios(
        floorOf('client_credentials', bareRoute as number, costs) as NonNullable<
          ReturnType<typeof floorOf>
        >,
        new Map<ServerName, Measurement>([
          ['ceiling', measured(bareRoute as number)],
          ['ours', measured(ours as number)],
        ]),
      ),
    );
    expect(medianFloorLines(rounds)).toEqual([
      'ours / floor                   1.50   (median of 3: 1.50 1.27 1.67)',
    ]);
  });

  it('measures an ES256 signature and verification in this process', async () => {
    const measuredCosts = await measureCryptoCosts(20, 1);
    expect(measuredCosts.signMicros).toBeGreaterThan(0);
    expect(measuredCosts.verifyMicros).toBeGreaterThan(0);
  });
});
