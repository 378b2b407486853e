import { describe, expect, it } from 'vitest';
import { staleCorePeerRanges } from '../../scripts/core-peer-range.js';

describe('the peer range on @gatehouse-oidc/core', () => {
  it("is ^{core's version} in every package that has one", () => {
    expect(
      staleCorePeerRanges(),
      'run: pnpm exec tsx scripts/core-peer-range.ts (pnpm version-packages does it)',
    ).toEqual([]);
  });
});
