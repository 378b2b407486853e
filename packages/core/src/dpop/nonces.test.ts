import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../store/memory-store.js';
import { fakeClock } from '../testing/clock.js';
import { DpopNonces, NONCE_PERIOD_SECONDS } from './nonces.js';

describe('DpopNonces', () => {
  it('accepts the current and the previous slot’s nonce, from any instance on the store', async () => {
    const clock = fakeClock();
    const store = new MemoryStore({ now: clock.now });
    const one = new DpopNonces(store, clock.now);
    const other = new DpopNonces(store, clock.now);
    const nonce = await one.current('test');
    expect(await other.accepts('test', nonce)).toBe(true);
    expect(await other.accepts('other-realm', nonce)).toBe(false);
    clock.advance(NONCE_PERIOD_SECONDS);
    expect(await other.current('test')).not.toBe(nonce);
    expect(await other.accepts('test', nonce)).toBe(true);
    clock.advance(NONCE_PERIOD_SECONDS);
    expect(await one.accepts('test', nonce)).toBe(false);
  });

  it('refuses a nonce of another store’s secret', async () => {
    const clock = fakeClock();
    const nonce = await new DpopNonces(new MemoryStore({ now: clock.now }), clock.now).current('t');
    const elsewhere = new DpopNonces(new MemoryStore({ now: clock.now }), clock.now);
    expect(await elsewhere.accepts('t', nonce)).toBe(false);
  });
});
