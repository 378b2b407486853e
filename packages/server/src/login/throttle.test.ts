import { fakeClock } from '@gatehouse-oidc/core/testing';
import { describe, expect, it } from 'vitest';
import { addressKey } from '../throttle/address-key.js';
import { type LoginAttempt, LoginThrottle } from './throttle.js';

function throttle(options: ConstructorParameters<typeof LoginThrottle>[0] = {}) {
  const clock = fakeClock();
  return { clock, throttle: new LoginThrottle({ now: clock.now, ...options }) };
}

/** Attempts that all fail (they stay counted); how many were let through. */
const failTimes = (t: LoginThrottle, times: number, username: string, address: string) => {
  let allowed = 0;
  for (let i = 0; i < times; i += 1) if (t.attempt('demo', username, address)) allowed += 1;
  return allowed;
};

const allowed = (t: LoginThrottle, username: string, address: string, realm = 'demo') => {
  const attempt = t.attempt(realm, username, address);
  // Probing must not count: a let-through probe is taken back.
  attempt?.cancel();
  return attempt !== undefined;
};

describe('LoginThrottle', () => {
  it('counts wrong device user codes against the address limit that passwords use, never a username', () => {
    const { throttle: t } = throttle();
    for (let i = 0; i < 19; i += 1) expect(t.userCodeAttempt('192.0.2.1')).toBeDefined();
    expect(t.sizes).toEqual({ pairs: 0, addresses: 1 });
    // A right code is no failure.
    t.userCodeAttempt('192.0.2.1')?.cancel();
    expect(allowed(t, 'alice', '192.0.2.1')).toBe(true);
    expect(t.userCodeAttempt('192.0.2.1')).toBeDefined();
    // 20 failures: neither a code nor a password from that address is tried any more.
    expect(t.userCodeAttempt('192.0.2.1')).toBeUndefined();
    expect(allowed(t, 'alice', '192.0.2.1')).toBe(false);
    expect(t.userCodeAttempt('192.0.2.2')).toBeDefined();
  });

  it('blocks a username at one address at its 5th failure, for 15 minutes from the first', () => {
    const { clock, throttle: t } = throttle();
    expect(failTimes(t, 4, 'alice', '192.0.2.1')).toBe(4);
    expect(allowed(t, 'alice', '192.0.2.1')).toBe(true);
    clock.advance(600);
    expect(failTimes(t, 1, 'alice', '192.0.2.1')).toBe(1);
    expect(allowed(t, 'alice', '192.0.2.1')).toBe(false);
    // The user signs in from elsewhere: one attacker cannot lock them out everywhere.
    expect(allowed(t, 'alice', '192.0.2.2')).toBe(true);
    expect(allowed(t, 'bob', '192.0.2.1')).toBe(true);
    expect(allowed(t, 'alice', '192.0.2.1', 'other-realm')).toBe(true);
    clock.advance(299);
    expect(allowed(t, 'alice', '192.0.2.1')).toBe(false);
    clock.advance(1);
    expect(allowed(t, 'alice', '192.0.2.1')).toBe(true);
    // A new window starts from scratch.
    failTimes(t, 4, 'alice', '192.0.2.1');
    expect(allowed(t, 'alice', '192.0.2.1')).toBe(true);
  });

  it('blocks an address at its 20th failure, across usernames and realms', () => {
    const { clock, throttle: t } = throttle();
    for (let i = 0; i < 19; i += 1) t.attempt(i % 2 ? 'demo' : 'staff', `user${i}`, '192.0.2.1');
    expect(allowed(t, 'fresh', '192.0.2.1')).toBe(true);
    t.attempt('demo', 'user19', '192.0.2.1');
    expect(allowed(t, 'fresh', '192.0.2.1')).toBe(false);
    expect(allowed(t, 'fresh', '192.0.2.2')).toBe(true);
    clock.advance(900);
    expect(allowed(t, 'fresh', '192.0.2.1')).toBe(true);
  });

  it('counts attempts still in flight: of 30 at once, the limit gets through', () => {
    const { throttle: t } = throttle();
    const attempts = Array.from({ length: 30 }, () => t.attempt('demo', 'alice', '192.0.2.1'));
    expect(attempts.filter(Boolean)).toHaveLength(5);
    const addressWide = Array.from({ length: 30 }, (_, i) =>
      t.attempt('demo', `u${i}`, '192.0.2.1'),
    );
    expect(addressWide.filter(Boolean)).toHaveLength(15);
  });

  it('clears the username’s count at that address on success, but not the address’s', () => {
    const { throttle: t } = throttle({ perAddress: { maxFailures: 6, windowSeconds: 900 } });
    failTimes(t, 4, 'alice', '192.0.2.1');
    t.attempt('demo', 'alice', '192.0.2.1')?.succeeded();
    // The success itself is no failure of the address, and the four before it still count.
    expect(failTimes(t, 1, 'alice', '192.0.2.1')).toBe(1);
    expect(allowed(t, 'alice', '192.0.2.1')).toBe(true);
    t.attempt('demo', 'bob', '192.0.2.1');
    expect(allowed(t, 'carol', '192.0.2.1')).toBe(false);
  });

  it('takes back a cancelled attempt entirely, and each attempt only once', () => {
    const { throttle: t } = throttle();
    failTimes(t, 4, 'alice', '192.0.2.1');
    const attempt = t.attempt('demo', 'alice', '192.0.2.1') as LoginAttempt;
    expect(allowed(t, 'alice', '192.0.2.1')).toBe(false);
    attempt.cancel();
    attempt.cancel();
    attempt.succeeded();
    // Back to four failures: one more attempt, then blocked.
    expect(failTimes(t, 2, 'alice', '192.0.2.1')).toBe(1);
  });

  it('counts an IPv6 address by its /64, an IPv4-mapped one as IPv4', () => {
    const { throttle: t } = throttle();
    for (let i = 1; i <= 5; i += 1) t.attempt('demo', 'alice', `2001:db8:0:7:${i}::1`);
    expect(allowed(t, 'alice', '2001:db8:0:7:ffff:ffff:ffff:ffff')).toBe(false);
    expect(allowed(t, 'alice', '2001:db8:0:8::1')).toBe(true);
    failTimes(t, 5, 'bob', '::ffff:192.0.2.1');
    expect(allowed(t, 'bob', '192.0.2.1')).toBe(false);
  });

  it.each([
    ['192.0.2.1', '192.0.2.1'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:192.0.2.1', '192.0.2.1'],
    ['::ffff:c000:201', '192.0.2.1'],
    ['0:0:0:0:0:ffff:192.0.2.1', '192.0.2.1'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:0DB8:0000:0001:0:0:0:1', '2001:db8:0:1::/64'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
    ['1:2:3:4:5::192.0.2.1', '1:2:3:4::/64'],
  ])('keys %s as %s', (address, key) => {
    expect(addressKey(address)).toBe(key);
  });

  it.each([
    ['2001:db8:1:2:3:4:5:6', 48, '2001:db8:1::/48'],
    ['2001:db8:1:2:3:4:5:6', 56, '2001:db8:1:0::/56'],
    ['2001:db8:1:2ff:3:4:5:6', 56, '2001:db8:1:200::/56'],
    ['2001:db8:1:2:3:4:5:6', 128, '2001:db8:1:2:3:4:5:6/128'],
    ['::ffff:192.0.2.1', 48, '192.0.2.1'],
  ])('keys %s under a /%i prefix as %s', (address, prefix, key) => {
    expect(addressKey(address, prefix)).toBe(key);
  });

  it('counts IPv6 addresses by the configured prefix', () => {
    const { throttle: t } = throttle({ ipv6PrefixLength: 48 });
    for (let i = 1; i <= 5; i += 1) t.attempt('demo', 'alice', `2001:db8:7:${i}::1`);
    expect(allowed(t, 'alice', '2001:db8:7:ffff::1')).toBe(false);
    expect(allowed(t, 'alice', '2001:db8:8::1')).toBe(true);
  });

  it('marks an attempt suspect once its address has a failure in its window', () => {
    const { clock, throttle: t } = throttle();
    const first = t.attempt('demo', 'alice', '192.0.2.1') as LoginAttempt;
    expect(first.suspect).toBe(false);
    expect(t.attempt('demo', 'bob', '192.0.2.1')?.suspect).toBe(true);
    expect(t.attempt('demo', 'alice', '192.0.2.2')?.suspect).toBe(false);
    clock.advance(900);
    expect(t.attempt('demo', 'alice', '192.0.2.1')?.suspect).toBe(false);
    // A success takes its own failure back: the address is not suspect for it.
    t.attempt('demo', 'carol', '192.0.2.3')?.succeeded();
    expect(t.attempt('demo', 'carol', '192.0.2.3')?.suspect).toBe(false);
  });

  it('counts a busy refusal against the address, not the username', () => {
    const { throttle: t } = throttle({ perAddress: { maxFailures: 6, windowSeconds: 900 } });
    for (let i = 0; i < 5; i += 1) t.attempt('demo', 'alice', '192.0.2.1')?.busy();
    // Five busy refusals: alice may still try at that address, once more, then the address is full.
    const attempt = t.attempt('demo', 'alice', '192.0.2.1') as LoginAttempt;
    attempt.busy();
    attempt.cancel();
    expect(allowed(t, 'alice', '192.0.2.1')).toBe(false);
    expect(allowed(t, 'alice', '192.0.2.2')).toBe(true);
  });

  it('holds at most maxEntries keys, dropping expired windows first, then the oldest', () => {
    const { clock, throttle: t } = throttle({ maxEntries: 3 });
    failTimes(t, 5, 'old', '192.0.2.1');
    clock.advance(600);
    t.attempt('demo', 'a', '192.0.2.2');
    t.attempt('demo', 'b', '192.0.2.3');
    expect(t.sizes).toEqual({ pairs: 3, addresses: 3 });
    // Full: the oldest window (old's) goes to make room.
    t.attempt('demo', 'c', '192.0.2.4');
    expect(t.sizes).toEqual({ pairs: 3, addresses: 3 });
    expect(allowed(t, 'old', '192.0.2.1')).toBe(true);
    // Once windows have expired, they are purged before anything live is dropped.
    clock.advance(900);
    t.attempt('demo', 'd', '192.0.2.5');
    expect(t.sizes).toEqual({ pairs: 1, addresses: 1 });
  });

  it('keys a long username by its first 256 characters', () => {
    const { throttle: t } = throttle();
    failTimes(t, 5, `${'x'.repeat(256)}a`, '192.0.2.1');
    expect(allowed(t, `${'x'.repeat(256)}b`, '192.0.2.1')).toBe(false);
  });
});
