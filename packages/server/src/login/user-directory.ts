import type { Account, Accounts } from '@gatehouse-oidc/core';
import type { UserConfig } from '../config/users.js';
import {
  type CheckKind,
  MIN_N,
  parsePasswordHash,
  passwordHash,
  type ScryptHash,
  unmatchableHash,
  verifyPassword,
} from './password.js';

/**
 * Cost of the in-memory hashes of plain-text `password` entries. They protect nothing the config
 * file does not already give away; hashing them only gives every login one uniform, constant-time
 * check. docs/decisions.md has the measurements behind the choice.
 */
export const PLAIN_PASSWORD_COST = MIN_N;

/** Where the directory finds a realm's users: the config file's, or the admin API's as last loaded. */
export type RealmUsers = (realm: string) => readonly UserConfig[] | undefined;

type PasswordCheck = (password: string, hash: ScryptHash, kind: CheckKind) => Promise<boolean>;

const defaultCheck: PasswordCheck = (password, hash, kind) =>
  verifyPassword(password, hash, undefined, kind);

interface Credential {
  sub: string;
  hash: ScryptHash;
}

interface RealmCredentials {
  byUsername: ReadonlyMap<string, Credential>;
  /** What an unknown username is checked against: the realm's most common hash parameters. */
  unknown: Omit<ScryptHash, 'salt'>;
}

/**
 * The users of the realms: the server's `Accounts` adapter, and the password check of its login
 * page. What is derived from a realm's users is kept as long as that list is the current one.
 */
export class UserDirectory implements Accounts {
  readonly #usersOf: RealmUsers;
  readonly #bySub = new WeakMap<readonly UserConfig[], ReadonlyMap<string, UserConfig>>();
  readonly #credentials = new WeakMap<readonly UserConfig[], Promise<RealmCredentials>>();
  readonly #verify: PasswordCheck;

  /** `verify` replaces the scrypt check (tests observe what an unknown username is checked against). */
  constructor(usersOf: RealmUsers, { verify = defaultCheck } = {}) {
    this.#verify = verify;
    this.#usersOf = usersOf;
  }

  async findAccount(realm: string, sub: string): Promise<Account | undefined> {
    const user = this.#user(realm, sub);
    return user && { sub: user.sub, claims: user.claims };
  }

  /** What the user types on the login page. */
  username(realm: string, sub: string): string | undefined {
    return this.#user(realm, sub)?.username;
  }

  /** A name to greet the user with: the `name` claim, else the username. */
  displayName(realm: string, sub: string): string | undefined {
    const user = this.#user(realm, sub);
    if (!user) return undefined;
    return typeof user.claims.name === 'string' ? user.claims.name : user.username;
  }

  /**
   * The subject whose username and password these are, or undefined. An unknown username costs
   * the same scrypt derivation as a wrong password, so timing does not tell which names exist.
   */
  async authenticate(
    realm: string,
    username: string,
    password: string,
    kind: CheckKind = 'check',
  ): Promise<string | undefined> {
    const { byUsername, unknown } = await this.#credentialsOf(realm);
    const credential = byUsername.get(username);
    const hash = credential?.hash ?? unmatchableHash(unknown);
    const matches = await this.#verify(password, hash, kind);
    return matches ? credential?.sub : undefined;
  }

  /** Hashes the plain-text passwords of these realms now rather than at the first login. */
  async prepare(realms: Iterable<string>): Promise<void> {
    await Promise.all([...realms].map((realm) => this.#credentialsOf(realm)));
  }

  #user(realm: string, sub: string): UserConfig | undefined {
    const users = this.#usersOf(realm);
    if (!users) return undefined;
    let bySub = this.#bySub.get(users);
    if (!bySub) {
      bySub = new Map(users.map((user) => [user.sub, user]));
      this.#bySub.set(users, bySub);
    }
    return bySub.get(sub);
  }

  #credentialsOf(realm: string): Promise<RealmCredentials> {
    const users = this.#usersOf(realm) ?? NO_USERS;
    let credentials = this.#credentials.get(users);
    if (!credentials) {
      credentials = hashRealm(users);
      this.#credentials.set(users, credentials);
      // A failure (out of memory...) must not stick: the next login tries again.
      credentials.catch(() => this.#credentials.delete(users));
    }
    return credentials;
  }
}

const NO_USERS: readonly UserConfig[] = [];

async function hashRealm(users: readonly UserConfig[]): Promise<RealmCredentials> {
  const entries = await Promise.all(
    users.map(async (user): Promise<[string, Credential]> => {
      const hash =
        user.password !== undefined
          ? await passwordHash(user.password, PLAIN_PASSWORD_COST)
          : parsedHash(user.password_hash ?? '');
      return [user.username, { sub: user.sub, hash }];
    }),
  );
  const byUsername = new Map(entries);
  return { byUsername, unknown: mostCommonParameters([...byUsername.values()]) };
}

function parsedHash(value: string): ScryptHash {
  const hash = parsePasswordHash(value);
  // Config validation has refused anything else already.
  if (typeof hash === 'string') throw new Error(`invalid password hash: ${hash}`);
  return hash;
}

/** Ties go to the costlier parameters: an unknown name then never answers faster than a known one. */
function mostCommonParameters(credentials: readonly Credential[]): Omit<ScryptHash, 'salt'> {
  const counts = new Map<string, { count: number; hash: ScryptHash }>();
  for (const { hash } of credentials) {
    const key = `${hash.N}/${hash.r}/${hash.p}/${hash.key.length}`;
    const entry = counts.get(key) ?? { count: 0, hash };
    entry.count += 1;
    counts.set(key, entry);
  }
  let best: { count: number; hash: ScryptHash } | undefined;
  for (const entry of counts.values()) {
    const costlier =
      best && entry.hash.N * entry.hash.r * entry.hash.p > best.hash.N * best.hash.r * best.hash.p;
    if (!best || entry.count > best.count || (entry.count === best.count && costlier)) best = entry;
  }
  return best?.hash ?? { N: PLAIN_PASSWORD_COST, r: 8, p: 1, key: new Uint8Array(32) };
}
