import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { Accounts } from '@gatehouse-oidc/core';

/** The app's own user table (a database in a real app). Passwords are kept as scrypt hashes. */
interface User {
  sub: string;
  username: string;
  salt: Buffer;
  hash: Buffer;
  /** OpenID claims; Gatehouse releases those the granted scopes allow. */
  claims: Record<string, unknown>;
}

function user(sub: string, password: string, claims: Record<string, unknown>): User {
  const salt = randomBytes(16);
  return { sub, username: sub, salt, hash: scryptSync(password, salt, 32), claims };
}

const users: User[] = [
  user('alice', 'alice-demo-password', {
    name: 'Alice Liddell',
    given_name: 'Alice',
    family_name: 'Liddell',
    email: 'alice@example.com',
    email_verified: true,
  }),
  user('bob', 'bob-demo-password', { name: 'Bob Marley', email: 'bob@example.com' }),
];

const scryptAsync = promisify(scrypt) as (
  pw: string,
  salt: Buffer,
  length: number,
) => Promise<Buffer>;
// An unknown username costs one scrypt too, so response times do not tell which usernames exist.
const nobody = user('', randomBytes(16).toString('hex'), {});

/** The user with that username and password, or undefined. */
export async function checkPassword(username: string, password: string): Promise<User | undefined> {
  const found = users.find((candidate) => candidate.username === username);
  const hash = await scryptAsync(password, (found ?? nobody).salt, 32);
  return timingSafeEqual(hash, (found ?? nobody).hash) ? found : undefined;
}

export const displayName = (sub: string): string =>
  String(users.find((candidate) => candidate.sub === sub)?.claims.name ?? sub);

/** The user table as Gatehouse sees it: it reads claims here for ID tokens and userinfo. */
export const accounts: Accounts = {
  async findAccount(_realm, sub) {
    const found = users.find((candidate) => candidate.sub === sub);
    return found && { sub: found.sub, claims: found.claims };
  },
};
