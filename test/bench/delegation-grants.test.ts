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
    };
    expect(delegationLines(figures)).toEqual([
      'token requests in process, 8 rounds of 1000, median CPU µs per request',
      'client_credentials       100.0',
      'token exchange           140.0  1.40× client_credentials (target ≤ 1.50×)',
      'jwt-bearer (ID-JAG)      250.0  2.50× client_credentials (target ≤ 1.50×)',
    ]);
  });

  it('measures the three requests, each answered 200', async () => {
    const figures = await measureDelegationGrants(1, 3);
    expect(figures.rows.map(({ name }) => name)).toEqual([
      'client_credentials',
      'token exchange',
      'jwt-bearer (ID-JAG)',
    ]);
    for (const { micros } of figures.rows) expect(micros).toBeGreaterThan(0);
  });
});
