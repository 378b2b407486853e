import { describe, expect, it } from 'vitest';
import { LoginThrottle } from '../../packages/server/src/login-throttle.js';
import { fakeClock } from '../support/fixtures.js';

function throttle(options: ConstructorParameters<typeof LoginThrottle>[0] = {}) {
  const clock = fakeClock();
  return { clock, throttle: new LoginThrottle({ now: clock.now, ...options }) };
}

const failTimes = (t: LoginThrottle, times: number, username: string, address: string) => {
  for (let i = 0; i < times; i += 1) t.failed('demo', username, address);
};

describe('LoginThrottle', () => {
  it('blocks a username at its 5th failure for 15 minutes from the first', () => {
    const { clock, throttle: t } = throttle();
    failTimes(t, 4, 'alice', '192.0.2.1');
    expect(t.blocked('demo', 'alice', '192.0.2.9')).toBe(false);
    clock.advance(600);
    t.failed('demo', 'alice', '192.0.2.2');
    expect(t.blocked('demo', 'alice', '192.0.2.9')).toBe(true);
    expect(t.blocked('demo', 'bob', '192.0.2.9')).toBe(false);
    expect(t.blocked('other-realm', 'alice', '192.0.2.9')).toBe(false);
    clock.advance(299);
    expect(t.blocked('demo', 'alice', '192.0.2.9')).toBe(true);
    clock.advance(1);
    expect(t.blocked('demo', 'alice', '192.0.2.9')).toBe(false);
    // A new window starts from scratch.
    t.failed('demo', 'alice', '192.0.2.9');
    expect(t.blocked('demo', 'alice', '192.0.2.9')).toBe(false);
  });

  it('blocks an address at its 20th failure, across usernames and realms', () => {
    const { clock, throttle: t } = throttle();
    for (let i = 0; i < 19; i += 1) t.failed(i % 2 ? 'demo' : 'staff', `user${i}`, '2001:db8::1');
    expect(t.blocked('demo', 'fresh', '2001:db8::1')).toBe(false);
    t.failed('demo', 'user19', '2001:db8::1');
    expect(t.blocked('demo', 'fresh', '2001:db8::1')).toBe(true);
    expect(t.blocked('demo', 'fresh', '2001:db8::2')).toBe(false);
    clock.advance(900);
    expect(t.blocked('demo', 'fresh', '2001:db8::1')).toBe(false);
  });

  it('forgets a username’s failures when it signs in, but not the address’s', () => {
    const { throttle: t } = throttle({ perAddress: { maxFailures: 6, windowSeconds: 900 } });
    failTimes(t, 4, 'alice', '192.0.2.1');
    t.succeeded('demo', 'alice');
    failTimes(t, 1, 'alice', '192.0.2.1');
    expect(t.blocked('demo', 'alice', '192.0.2.2')).toBe(false);
    t.failed('demo', 'bob', '192.0.2.1');
    expect(t.blocked('demo', 'carol', '192.0.2.1')).toBe(true);
  });

  it('holds at most maxEntries keys, dropping expired windows first, then the oldest', () => {
    const { clock, throttle: t } = throttle({ maxEntries: 3 });
    failTimes(t, 5, 'old', '192.0.2.1');
    clock.advance(600);
    t.failed('demo', 'a', '192.0.2.2');
    t.failed('demo', 'b', '192.0.2.3');
    expect(t.sizes).toEqual({ usernames: 3, addresses: 3 });
    // Full: the oldest window (old's) goes to make room.
    t.failed('demo', 'c', '192.0.2.4');
    expect(t.sizes).toEqual({ usernames: 3, addresses: 3 });
    expect(t.blocked('demo', 'old', '192.0.2.9')).toBe(false);
    // Once windows have expired, they are purged before anything live is dropped.
    clock.advance(900);
    t.failed('demo', 'd', '192.0.2.5');
    expect(t.sizes).toEqual({ usernames: 1, addresses: 1 });
  });

  it('keys a long username by its first 256 characters', () => {
    const { throttle: t } = throttle();
    failTimes(t, 5, `${'x'.repeat(256)}a`, '192.0.2.1');
    expect(t.blocked('demo', `${'x'.repeat(256)}b`, '192.0.2.2')).toBe(true);
  });
});
