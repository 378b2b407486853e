/** A clock a test moves by hand. */
export interface FakeClock {
  /** Milliseconds since the epoch, like `Date.now`: hand it to `createProvider({ now })`. */
  readonly now: () => number;
  /** Moves the clock forward by `seconds`. */
  advance(seconds: number): void;
}

/** A clock that stands still until advanced; it starts at 2030-01-01T00:00:00Z by default. */
export function fakeClock(start = Date.UTC(2030, 0, 1)): FakeClock {
  let current = start;
  return {
    now: () => current,
    advance(seconds) {
      current += seconds * 1000;
    },
  };
}
