import { describe, expect, it } from 'vitest';
import { delegationLines, measureDelegationGrants } from '../../bench/src/delegation-grants.js';

describe('the delegation_grants bench', () => {
  it('prints each grant’s CPU per request and its ratio to client_credentials against the target', () => {
    const figures = {
      rounds: 8,
      requestsPerRound: 1000,
      rows: [
        { name: 'client_credentials', micros: 100 },
        { name: 'token exchange', micros: 140 },
        { name: 'jwt-bearer (ID-JAG)', micros: 250 },
      ],
      floor: { sign: 25, verify: 70 },
    };
    expect(delegationLines(figures)).toEqual([
      'token requests in process, 8 rounds of 1000, median CPU µs per request',
      'client_credentials       100.0',
      'token exchange           140.0  1.40× client_credentials (target ≤ 1.50×)',
      'jwt-bearer (ID-JAG)      250.0  2.50× client_credentials (target ≤ 1.50×)',
      'floor, ES256 on node:crypto between the rows: sign 25.0 µs, verify 70.0 µs',
      '  crypto alone, (sign + verify) / sign: 3.80×',
      '  least a delegation grant can cost, (client_credentials + verify) / client_credentials: 1.70× (target ≤ 1.50×: below the cryptography’s floor)',
    ]);
  });

  it('says the target is within reach when a verification costs at most half a client_credentials request', () => {
    const lines = delegationLines({
      rounds: 8,
      requestsPerRound: 1000,
      rows: [{ name: 'client_credentials', micros: 100 }],
      floor: { sign: 25, verify: 50 },
    });
    expect(lines.at(-1)).toBe(
      '  least a delegation grant can cost, (client_credentials + verify) / client_credentials: 1.50× (target ≤ 1.50×: within reach)',
    );
  });

  it('measures the three requests, each answered 200', async () => {
    const figures = await measureDelegationGrants(1, 3);
    expect(figures.rows.map(({ name }) => name)).toEqual([
      'client_credentials',
      'token exchange',
      'jwt-bearer (ID-JAG)',
    ]);
    for (const { micros } of figures.rows) expect(micros).toBeGreaterThan(0);
    expect(figures.floor.sign).toBeGreaterThan(0);
    expect(figures.floor.verify).toBeGreaterThan(0);
  });
});
