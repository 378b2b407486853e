import type { Account, Accounts } from '@gatehouse/core';
import {
  MIN_N,
  parsePasswordHash,
  passwordHash,
  type ScryptHash,
  unmatchableHash,
  verifyPassword,
} from './password.js';
import type { UserConfig } from './users.js';

/**
 * Cost of the in-memory hashes of plain-text `password` entries. They protect nothing the config
 * file does not already give away; hashing them only gives every login one uniform, constant-time
 * check. docs/decisions.md has the measurements behind the choice.
 */
export const PLAIN_PASSWORD_COST = MIN_N;

export interface RealmUsers {
  name: string;
  users: readonly UserConfig[];
}

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
 * The users of the config file: the server's `Accounts` adapter, and the password check of its
 * login page.
 */
export class UserDirectory implements Accounts {
  readonly #realms: ReadonlyMap<string, readonly UserConfig[]>;
  readonly #bySub: ReadonlyMap<string, ReadonlyMap<string, UserConfig>>;
  readonly #credentials = new Map<string, Promise<RealmCredentials>>();
  readonly #verify: typeof verifyPassword;

  /** `verify` replaces the scrypt check (tests observe what an unknown username is checked against). */
  constructor(realms: readonly RealmUsers[], { verify = verifyPassword } = {}) {
    this.#verify = verify;
    this.#realms = new Map(realms.map((realm) => [realm.name, realm.users]));
    this.#bySub = new Map(
      realms.map((realm) => [realm.name, new Map(realm.users.map((user) => [user.sub, user]))]),
    );
  }

  async findAccount(realm: string, sub: string): Promise<Account | undefined> {
    const user = this.#bySub.get(realm)?.get(sub);
    return user && { sub: user.sub, claims: user.claims };
  }

  /** A name to greet the user with: the `name` claim, else the username. */
  displayName(realm: string, sub: string): string | undefined {
    const user = this.#bySub.get(realm)?.get(sub);
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
  ): Promise<string | undefined> {
    const { byUsername, unknown } = await this.#credentialsOf(realm);
    const credential = byUsername.get(username);
    const matches = await this.#verify(password, credential?.hash ?? unmatchableHash(unknown));
    return matches ? credential?.sub : undefined;
  }

  /** Hashes the plain-text passwords of every realm now rather than at the first login. */
  async prepare(): Promise<void> {
    await Promise.all([...this.#realms.keys()].map((realm) => this.#credentialsOf(realm)));
  }

  #credentialsOf(realm: string): Promise<RealmCredentials> {
    let credentials = this.#credentials.get(realm);
    if (!credentials) {
      credentials = hashRealm(this.#realms.get(realm) ?? []);
      this.#credentials.set(realm, credentials);
      // A failure (out of memory...) must not stick: the next login tries again.
      credentials.catch(() => this.#credentials.delete(realm));
    }
    return credentials;
  }
}

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
