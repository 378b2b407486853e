import { hashPassword, parsePasswordHash, verifyPassword } from '@gatehouse/server';
import { describe, expect, it } from 'vitest';
import { BOB_PASSWORD_HASH } from './support.js';

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
