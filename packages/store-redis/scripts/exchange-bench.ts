/**
 * What the authorization-code exchange asks of RedisStore, without the HTTP server and the
 * signatures around it: `consumeIf` of the code (its client, redirect URI, PKCE challenge and
 * DPoP key), then the access token's `add` and the refresh token's `set` under the code's
 * grant, both at once (grants/user-token-response.ts). Many
 * exchanges in flight, like a server under load; it prints, per exchange, the client's CPU
 * (this process), Redis's CPU, the commands Redis ran (a script counting once plus each call
 * inside it) and its reads (round trips; several exchanges share one when pipelined). CPU per
 * exchange moves much less than throughput on a shared machine. Run against a local Redis:
 *
 *   npx tsx packages/store-redis/scripts/exchange-bench.ts [redis://127.0.0.1:6379]
 *
 * Redis's counters are the whole server's: anything else using it at the same time is counted
 * too. docs/performance-history.md quotes this script's figures.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { RedisStore } from '../src/index.js';

const url = process.argv[2] ?? 'redis://127.0.0.1:6379';
const EXCHANGES = Number(process.env.EXCHANGES ?? 20_000);
const IN_FLIGHT = 50;
const ROUNDS = Number(process.env.ROUNDS ?? 5);

/** Records the size and shape of the bench's (bench/src/servers/ours.ts). */
const GRANT = {
  sub: 'bench-user',
  clientId: 'bench-web',
  scopes: ['openid', 'api:read'],
  resource: 'https://api.example.com',
  authTime: 1_700_000_000,
  sid: 'x'.repeat(43),
};
const CODE = {
  ...GRANT,
  redirectUri: 'https://app.example.com/callback',
  codeChallenge: 'y'.repeat(43),
  nonce: 'bench-nonce',
  exp: 1_900_000_000,
};
const ACCESS_TOKEN = {
  realm: 'bench',
  jti: 'z'.repeat(22),
  sub: 'bench-user',
  client_id: 'bench-web',
  aud: 'https://api.example.com',
  resource: 'https://api.example.com',
  scope: 'openid api:read',
  iat: 1_700_000_000,
  nbf: 1_700_000_000,
  exp: 1_700_000_600,
};
const REFRESH_TOKEN = { ...GRANT, iat: 1_700_000_000, exp: 1_702_592_000 };

interface RedisCounters {
  cpuMicros: number;
  commands: number;
  reads: number;
}

async function redisCounters(admin: Redis): Promise<RedisCounters> {
  const info = await admin.info('cpu', 'stats');
  const field = (name: string) => Number(new RegExp(`^${name}:([0-9.]+)`, 'm').exec(info)?.[1]);
  return {
    cpuMicros: (field('used_cpu_user') + field('used_cpu_sys')) * 1e6,
    commands: field('total_commands_processed'),
    reads: field('total_reads_processed'),
  };
}

async function inFlight(count: number, run: (n: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < count) await run(next++);
    }),
  );
}

async function round(admin: Redis): Promise<Record<string, number>> {
  const keyPrefix = `exchange-bench:${randomUUID()}:`;
  const store = new RedisStore({ url, keyPrefix });
  const grantOf = (n: number) => `grant-${n}`;
  await inFlight(EXCHANGES, (n) =>
    store.add(
      'authorization_code',
      `code-${n}`,
      { ...CODE, grantId: grantOf(n) },
      {
        ttlSeconds: 600,
        grantId: grantOf(n),
      },
    ),
  );
  const exchange = async (n: number) => {
    const consumed = await store.consumeIf('authorization_code', `code-${n}`, {
      clientId: [CODE.clientId],
      redirectUri: [CODE.redirectUri],
      codeChallenge: [CODE.codeChallenge],
      dpopJkt: [null],
    });
    if (!consumed?.firstUse) throw new Error(`code ${n} was not consumed first`);
    const grantId = grantOf(n);
    await Promise.all([
      store.add('access_token', `at-${n}`, ACCESS_TOKEN, { ttlSeconds: 600, grantId }),
      store.set('refresh_token', `rt-${n}`, REFRESH_TOKEN, { ttlSeconds: 2_592_000, grantId }),
    ]);
  };
  const redisBefore = await redisCounters(admin);
  const cpu = process.cpuUsage();
  const started = performance.now();
  await inFlight(EXCHANGES, exchange);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const redisAfter = await redisCounters(admin);
  await store.close();
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await admin.unlink(...keys);
    cursor = next;
  } while (cursor !== '0');
  const per = (value: number) => value / EXCHANGES;
  return {
    'exchanges/s': EXCHANGES / seconds,
    'client CPU µs': per(used.user + used.system),
    'Redis CPU µs': per(redisAfter.cpuMicros - redisBefore.cpuMicros),
    commands: per(redisAfter.commands - redisBefore.commands),
    reads: per(redisAfter.reads - redisBefore.reads),
  };
}

const admin = new Redis(url);
const rounds: Record<string, number>[] = [];
for (let n = 0; n < ROUNDS; n++) rounds.push(await round(admin));
await admin.quit();

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
console.log(`${EXCHANGES} exchanges, ${IN_FLIGHT} in flight, median of ${ROUNDS} rounds:`);
for (const name of Object.keys(rounds[0] ?? {})) {
  const values = rounds.map((each) => each[name] ?? Number.NaN);
  console.log(
    `  ${name.padEnd(14)} ${median(values).toFixed(name === 'exchanges/s' ? 0 : 2)}` +
      `   (${values.map((value) => value.toFixed(1)).join(', ')})`,
  );
}
