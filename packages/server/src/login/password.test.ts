import { describe, expect, it } from 'vitest';
import { BOB_PASSWORD_HASH } from '../../../../test/server/support.js';
import {
  type DerivationLimits,
  DerivationSlots,
  hashPassword,
  PasswordCheckBusyError,
  parsePasswordHash,
  verifyPassword,
} from './password.js';

const CHEAP = { N: 2 ** 14 };

function parsed(hash: string) {
  const result = parsePasswordHash(hash);
  if (typeof result === 'string') throw new Error(result);
  return result;
}

describe('password hashes', () => {
  it('verifies a stored hash: the format is stable across releases', async () => {
    const hash = parsed(BOB_PASSWORD_HASH);
    expect(await verifyPassword('bob-password', hash)).toBe(true);
    expect(await verifyPassword('bob-passwore', hash)).toBe(false);
    expect(await verifyPassword('', hash)).toBe(false);
  });

  it('makes hashes at the default cost that verify', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(await verifyPassword('correct horse', parsed(hash))).toBe(true);
  });

  it('salts every hash', async () => {
    const [first, second] = await Promise.all(
      [1, 2].map(() => hashPassword('correct horse', CHEAP)),
    );
    expect(first).not.toBe(second);
    expect(await verifyPassword('correct horsf', parsed(first as string))).toBe(false);
  });

  it('answers every one of many verifications started together, each rightly', async () => {
    const hash = parsed(BOB_PASSWORD_HASH);
    const attempts = ['bob-password', 'x', 'bob-password', 'y', 'bob-password'];
    expect(await Promise.all(attempts.map((password) => verifyPassword(password, hash)))).toEqual([
      true,
      false,
      true,
      false,
      true,
    ]);
  });

  it('refuses to make a hash cheaper than config validation accepts', async () => {
    await expect(hashPassword('correct horse', { N: 2 ** 13 })).rejects.toThrow(
      'N must be a power of 2',
    );
  });

  it('treats canonically equal Unicode spellings of a password as the same password', async () => {
    const hash = parsed(await hashPassword('caf\u00e9-password', CHEAP));
    expect(await verifyPassword('cafe\u0301-password', hash)).toBe(true);
  });

  it.each([
    ['not power of two N', BOB_PASSWORD_HASH.replace('16384', '20000'), 'N must be a power of 2'],
    ['zero r', BOB_PASSWORD_HASH.replace('$8$', '$0$'), 'r and p must be at least 1'],
    [
      'short key',
      BOB_PASSWORD_HASH.replace(/\$[\w-]+$/, '$c2hvcnQ'),
      'the key must be 32 to 64 bytes',
    ],
    ['padding in base64', `${BOB_PASSWORD_HASH}=`, 'must have the form'],
  ])('refuses a hash with %s', (_name, hash, reason) => {
    expect(parsePasswordHash(hash)).toContain(reason);
  });
});

/** Lets every pending promise callback run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Slots whose derivations the test finishes (or fails) when it wants; `started` records the order. */
function heldSlots(limits: Partial<DerivationLimits> & { concurrent: number }) {
  const slots = new DerivationSlots({ waitingChecks: 8, waitingSuspectChecks: 8, ...limits });
  const started: string[] = [];
  const submit = (name: string, kind: 'check' | 'suspect-check' | 'hash' = 'check') => {
    let finish!: () => void;
    let fail!: (error: Error) => void;
    const done = new Promise<string>((resolve, reject) => {
      finish = () => resolve(name);
      fail = reject;
    });
    const result = slots.run(() => {
      started.push(name);
      return done;
    }, kind);
    // Refusals are asserted through `result`; never an unhandled rejection meanwhile.
    result.catch(() => {});
    return { result, finish, fail };
  };
  return { slots, started, submit };
}

describe('DerivationSlots', () => {
  it('runs at most `concurrent` derivations at once, then the waiting ones in arrival order', async () => {
    const { started, submit } = heldSlots({ concurrent: 2, waitingChecks: 8 });
    const [a, b, c, d] = [submit('a'), submit('b'), submit('c', 'hash'), submit('d')];
    await settle();
    expect(started).toEqual(['a', 'b']);
    b.finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    for (const derivation of [a, c, d]) derivation.finish();
    expect(await Promise.all([a, b, c, d].map(({ result }) => result))).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
  });

  it('refuses a suspect check beyond the waiting limit at once, without running it; a hash still waits', async () => {
    const { slots, started, submit } = heldSlots({ concurrent: 1, waitingChecks: 2 });
    const accepted = [submit('running'), submit('w1'), submit('w2')];
    const refused = submit('refused', 'suspect-check');
    const hash = submit('hash', 'hash');
    await expect(refused.result).rejects.toBeInstanceOf(PasswordCheckBusyError);
    for (const derivation of [...accepted, hash]) derivation.finish();
    expect(await Promise.all([...accepted, hash].map(({ result }) => result))).toEqual([
      'running',
      'w1',
      'w2',
      'hash',
    ]);
    expect(started).toEqual(['running', 'w1', 'w2', 'hash']);
    // Once the queue has drained, checks are accepted again.
    expect(await slots.run(async () => 'later', 'check')).toBe('later');
  });

  it('runs suspect checks after every other waiting derivation', async () => {
    const { started, submit } = heldSlots({ concurrent: 1 });
    const running = submit('running');
    const waiting = [submit('s1', 'suspect-check'), submit('c1'), submit('s2', 'suspect-check')];
    const hash = submit('h1', 'hash');
    for (const derivation of [running, ...waiting, hash]) derivation.finish();
    await Promise.all([running, ...waiting, hash].map(({ result }) => result));
    expect(started).toEqual(['running', 'c1', 'h1', 's1', 's2']);
  });

  it('keeps waiting places for checks that are not suspect', async () => {
    const { started, submit } = heldSlots({
      concurrent: 1,
      waitingChecks: 3,
      waitingSuspectChecks: 2,
    });
    const accepted = [
      submit('running'),
      submit('s1', 'suspect-check'),
      submit('s2', 'suspect-check'),
    ];
    const refused = submit('s3', 'suspect-check');
    await expect(refused.result).rejects.toBeInstanceOf(PasswordCheckBusyError);
    const clean = submit('c1');
    for (const derivation of [...accepted, clean]) derivation.finish();
    await Promise.all([...accepted, clean].map(({ result }) => result));
    expect(started).toEqual(['running', 'c1', 's1', 's2']);
  });

  it('gives a check that is not suspect the place of the last suspect one, else of the first check', async () => {
    const { started, submit } = heldSlots({
      concurrent: 1,
      waitingChecks: 3,
      waitingSuspectChecks: 2,
    });
    const [running, s1, s2, c1] = [
      submit('running'),
      submit('s1', 'suspect-check'),
      submit('s2', 'suspect-check'),
      submit('c1'),
    ];
    const [c2, c3] = [submit('c2'), submit('c3')];
    await expect(s2.result).rejects.toBeInstanceOf(PasswordCheckBusyError);
    await expect(s1.result).rejects.toBeInstanceOf(PasswordCheckBusyError);
    // Only checks that are not suspect wait: a newer one takes the place of the first.
    const c4 = submit('c4');
    await expect(c1.result).rejects.toBeInstanceOf(PasswordCheckBusyError);
    // A suspect check never takes a place.
    await expect(submit('s3', 'suspect-check').result).rejects.toBeInstanceOf(
      PasswordCheckBusyError,
    );
    for (const derivation of [running, c2, c3, c4]) derivation.finish();
    await Promise.all([running, c2, c3, c4].map(({ result }) => result));
    expect(started).toEqual(['running', 'c2', 'c3', 'c4']);
  });

  it('frees the slot of a derivation that fails', async () => {
    const { slots, submit } = heldSlots({ concurrent: 1, waitingChecks: 0 });
    const failing = submit('failing');
    await expect(submit('busy').result).rejects.toThrow(PasswordCheckBusyError);
    failing.fail(new Error('out of memory'));
    await expect(failing.result).rejects.toThrow('out of memory');
    expect(await slots.run(async () => 'next', 'check')).toBe('next');
  });

  it('makes verifyPassword refuse when its slots are full, rather than queue', async () => {
    const { slots, submit } = heldSlots({ concurrent: 1, waitingChecks: 0 });
    const holder = submit('holder');
    const hash = parsed(BOB_PASSWORD_HASH);
    await expect(verifyPassword('bob-password', hash, slots)).rejects.toThrow(
      PasswordCheckBusyError,
    );
    holder.finish();
    await holder.result;
    expect(await verifyPassword('bob-password', hash, slots)).toBe(true);
  });
});
