import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** Parameters of a stored password hash: `scrypt$N$r$p$salt$key`, salt and key in base64url. */
export interface ScryptHash {
  readonly N: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Uint8Array;
  readonly key: Uint8Array;
}

export const PASSWORD_HASH_FORMAT = 'scrypt$<N>$<r>$<p>$<salt>$<key>';

/** What new hashes use: the OWASP minimum for scrypt (N=2^17, r=8, p=1), 128 MiB per hash. */
const DEFAULT_PARAMETERS = { N: 2 ** 17, r: 8, p: 1 } as const;
/** Bounds a config file cannot go beyond: weaker hashes are refused, costlier ones could stall login. */
export const MIN_N = 2 ** 14;
const MAX_MEMORY_BYTES = 256 * 1024 * 1024;
const MIN_SALT_BYTES = 16;
const KEY_BYTES = { min: 32, max: 64 } as const;
const HASH_SHAPE = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/;

const COST_RULE = `N must be a power of 2 of at least ${MIN_N}`;
const validCost = (N: number) => N >= MIN_N && (N & (N - 1)) === 0;

/** The parsed hash, or a reason it is not one Gatehouse accepts. */
export function parsePasswordHash(value: string): ScryptHash | string {
  const match = HASH_SHAPE.exec(value);
  if (!match) return `must have the form ${PASSWORD_HASH_FORMAT}`;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const salt = Buffer.from(match[4] ?? '', 'base64url');
  const key = Buffer.from(match[5] ?? '', 'base64url');
  if (!validCost(N)) return COST_RULE;
  if (r < 1 || p < 1) return 'r and p must be at least 1';
  if (memoryBytes(N, r) > MAX_MEMORY_BYTES) return 'N × r needs more than 256 MiB';
  if (salt.length < MIN_SALT_BYTES) return `the salt must be at least ${MIN_SALT_BYTES} bytes`;
  if (key.length < KEY_BYTES.min || key.length > KEY_BYTES.max) {
    return `the key must be ${KEY_BYTES.min} to ${KEY_BYTES.max} bytes`;
  }
  return { N, r, p, salt, key };
}

/** A new `scrypt$…` hash of the password with a random salt; `N` (cost) defaults to 2^17. */
export async function hashPassword(
  password: string,
  { N = DEFAULT_PARAMETERS.N } = {},
): Promise<string> {
  const hash = await passwordHash(password, N);
  return ['scrypt', hash.N, hash.r, hash.p, base64url(hash.salt), base64url(hash.key)].join('$');
}

/** Like hashPassword, parsed: for passwords that never leave memory. */
export async function passwordHash(password: string, N: number): Promise<ScryptHash> {
  const { r, p } = DEFAULT_PARAMETERS;
  if (!validCost(N)) throw new RangeError(COST_RULE);
  const salt = randomBytes(MIN_SALT_BYTES);
  const params = { N, r, p, salt, key: new Uint8Array(KEY_BYTES.min) };
  const key = await SHARED_SLOTS.run(() => derive(password, params), 'hash');
  return { N, r, p, salt, key };
}

/**
 * A hash no password matches, costing what a verification against a hash with these parameters
 * costs: what an unknown username is checked against, so timing does not tell it apart.
 */
export function unmatchableHash({ N, r, p, key }: Omit<ScryptHash, 'salt'>): ScryptHash {
  return { N, r, p, salt: randomBytes(MIN_SALT_BYTES), key: randomBytes(key.length) };
}

/**
 * Whether the password matches the hash; constant-time in the key comparison. Throws
 * PasswordCheckBusyError, without deriving anything, when `slots` has too many checks waiting.
 * A `suspect` check (from an address that failed recently) waits behind the others.
 */
export async function verifyPassword(
  password: string,
  hash: ScryptHash,
  slots: DerivationSlots = SHARED_SLOTS,
  kind: CheckKind = 'check',
): Promise<boolean> {
  return timingSafeEqual(await slots.run(() => derive(password, hash), kind), hash.key);
}

/** Too many password checks are waiting: the caller answers "try again later". */
export class PasswordCheckBusyError extends Error {
  override name = 'PasswordCheckBusyError';
}

export interface DerivationLimits {
  /**
   * Derivations running at once. Each holds its whole N×r buffer until it finishes and takes
   * one of the 4 threads of libuv's pool, and nothing else bounds how many login forms arrive
   * together: two at a time is at most 512 MiB and leaves the pool two threads for files and DNS.
   */
  concurrent: number;
  /**
   * Password checks waiting for a slot. Beyond it a suspect check is refused at once: a queue
   * without bound lets a flood of posts make every legitimate login wait minutes. A check that
   * is not suspect takes the place of the last suspect one waiting, or else of the first check
   * waiting, which is refused: a flood has one such check per address and window, so a wave of
   * them from many fresh addresses cannot keep refusing a login that comes after it. Hashing the
   * config's plain-text passwords waits without bound; the config file bounds it.
   */
  waitingChecks: number;
  /**
   * Of those, how many may be suspect: the rest of the queue is kept for addresses without
   * recent failures, so a flood of wrong passwords cannot refuse their logins.
   */
  waitingSuspectChecks: number;
}

const DEFAULT_DERIVATION_LIMITS: DerivationLimits = {
  concurrent: 2,
  waitingChecks: 32,
  waitingSuspectChecks: 16,
};

/** A password check from an address without recent failures, or from one with (`suspect`). */
export type CheckKind = 'check' | 'suspect-check';
type DerivationKind = CheckKind | 'hash';

interface Waiter {
  kind: DerivationKind;
  start: () => void;
  /** Gives its waiting place up to a check that takes precedence. */
  refuse: (error: PasswordCheckBusyError) => void;
}

/**
 * Slots for scrypt derivations, handed out in arrival order, except that suspect checks go
 * after every other waiting derivation. A check that is not suspect finds a waiting place even
 * when all are taken (see DerivationLimits.waitingChecks).
 */
export class DerivationSlots {
  #running = 0;
  /** Hashes and checks, then suspect checks, each in arrival order. */
  readonly #waiting: Record<'first' | 'suspect', Waiter[]> = { first: [], suspect: [] };
  #waitingChecks = 0;

  constructor(private readonly limits: DerivationLimits = DEFAULT_DERIVATION_LIMITS) {}

  /** Runs `derivation` once a slot is free; a check beyond the waiting limits throws instead. */
  async run<T>(derivation: () => Promise<T>, kind: DerivationKind): Promise<T> {
    if (this.#running >= this.limits.concurrent) {
      if (kind !== 'hash') {
        if (this.#full(kind) && !(kind === 'check' && this.#giveUpPlace())) {
          throw new PasswordCheckBusyError('too many password checks waiting');
        }
        this.#waitingChecks += 1;
      }
      const queue = kind === 'suspect-check' ? this.#waiting.suspect : this.#waiting.first;
      await new Promise<void>((start, refuse) => queue.push({ kind, start, refuse }));
    } else {
      this.#running += 1;
    }
    try {
      return await derivation();
    } finally {
      // The slot passes straight to the next waiter, so `running` never overshoots the limit.
      const next = this.#waiting.first.shift() ?? this.#waiting.suspect.shift();
      if (!next) this.#running -= 1;
      else {
        if (next.kind !== 'hash') this.#waitingChecks -= 1;
        next.start();
      }
    }
  }

  /** Refuses the last suspect check waiting, or else the first check: whether one was. */
  #giveUpPlace(): boolean {
    const first = this.#waiting.first;
    const index = first.findIndex((waiter) => waiter.kind === 'check');
    const waiter = this.#waiting.suspect.pop() ?? first.splice(index, index === -1 ? 0 : 1)[0];
    if (!waiter) return false;
    this.#waitingChecks -= 1;
    waiter.refuse(new PasswordCheckBusyError('a check that takes precedence took its place'));
    return true;
  }

  #full(kind: CheckKind): boolean {
    if (this.#waitingChecks >= this.limits.waitingChecks) return true;
    return (
      kind === 'suspect-check' && this.#waiting.suspect.length >= this.limits.waitingSuspectChecks
    );
  }
}

const SHARED_SLOTS = new DerivationSlots();

/**
 * Node's scrypt runs on libuv's thread pool: the event loop keeps accepting connections and
 * answering requests while passwords are checked. (Pure-JS scrypt on the main thread, even
 * yielding every 10 ms, left new connections waiting in the kernel's accept queue for as long as
 * a flood kept the checks busy.)
 */
function derive(password: string, { N, r, p, salt, key }: ScryptHash): Promise<Uint8Array> {
  const options = { N, r, p, maxmem: memoryBytes(N, r) + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, key.length, options, (error, derived) =>
      error ? reject(error) : resolve(new Uint8Array(derived)),
    );
  });
}

function memoryBytes(N: number, r: number): number {
  return 128 * N * r;
}

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
