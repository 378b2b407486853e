import { describe, expect, it } from 'vitest';
import { BOB_PASSWORD_HASH } from '../../../../test/server/support.js';
import type { ScryptHash } from './password.js';
import { UserDirectory } from './user-directory.js';

describe('UserDirectory', () => {
  const realm = {
    name: 'demo',
    users: [
      { sub: 'bob-sub', username: 'bob', password_hash: BOB_PASSWORD_HASH, claims: {} },
      {
        sub: 'carol-sub',
        username: 'carol',
        password_hash: BOB_PASSWORD_HASH,
        claims: { name: 'Carol' },
      },
    ],
  };
  const usersOf = (name: string) => (name === realm.name ? realm.users : undefined);

  it('checks an unknown username against a hash of the realm’s usual cost', async () => {
    const checked: ScryptHash[] = [];
    const users = new UserDirectory(usersOf, {
      verify: async (_password, hash) => {
        checked.push(hash);
        return false;
      },
    });
    expect(await users.authenticate('demo', 'nobody', 'bob-password')).toBeUndefined();
    expect(await users.authenticate('demo', 'bob', 'bob-password')).toBeUndefined();
    const [unknown, known] = checked;
    expect(unknown).toMatchObject({ N: 16384, r: 8, p: 1 });
    expect(unknown?.key.length).toBe(known?.key.length);
    expect(unknown?.salt).not.toEqual(known?.salt);
  });

  it('finds users by realm and subject (the provider’s Accounts)', async () => {
    const users = new UserDirectory(usersOf);
    expect(await users.findAccount('demo', 'carol-sub')).toEqual({
      sub: 'carol-sub',
      claims: { name: 'Carol' },
    });
    expect(await users.findAccount('demo', 'carol')).toBeUndefined();
    expect(await users.findAccount('other', 'carol-sub')).toBeUndefined();
    expect(users.displayName('demo', 'carol-sub')).toBe('Carol');
    expect(users.displayName('demo', 'bob-sub')).toBe('bob');
  });

  it('matches usernames exactly and needs the right password', async () => {
    const users = new UserDirectory(usersOf);
    expect(await users.authenticate('demo', 'bob', 'bob-password')).toBe('bob-sub');
    expect(await users.authenticate('demo', 'Bob', 'bob-password')).toBeUndefined();
    expect(await users.authenticate('other', 'bob', 'bob-password')).toBeUndefined();
  });
});
