/// <reference path="./autocannon.d.ts" />
import autocannon from 'autocannon';
import { launchServer } from './launch.js';
import type { BenchSettings } from './settings.js';
import { residentBytes, startStandalone } from './standalone.js';
import {
  BENCH_CODE_CHALLENGE,
  BENCH_REDIRECT_URI,
  BENCH_WEB_CLIENT_ID,
  BENCH_WEB_CLIENT_SECRET,
} from './token-request.js';

/**
 * The `anonymous_memory` scenario (issue 13): what a flood of anonymous authorization requests
 * leaves in a server's memory. Each GET starts a sign-in for a browser that never comes back, with
 * `state` and `nonce` of 1,800 characters each. Ours is the standalone server (`gatehouse serve`)
 * with its defaults, oidc-provider the bench's (its own memory adapter over storage that keeps
 * each record until its expiry). Resident memory is read from outside, with `ps`.
 */

const PARAMETER_LENGTH = 1_800;
const SAMPLE_EVERY_MS = 1_000;

export interface MemoryFigures {
  readonly requests: number;
  readonly seconds: number;
  /** Resident bytes once the server answered its first request. */
  readonly idle: number;
  readonly peak: number;
  /** Resident bytes when the flood ended; undefined when the server died. */
  readonly after: number | undefined;
  /** Answers other than a redirect to the login page, errors and timeouts. */
  readonly failures: number;
  readonly note: string;
}

interface FloodTarget {
  readonly url: string;
  readonly pid: number;
  /** Resolves when the server process exits. */
  readonly exited: Promise<unknown>;
  note(): Promise<string>;
  stop(): Promise<void>;
}

/** Runs the scenario on both servers, one after the other, and prints their figures. */
export async function anonymousMemory(settings: BenchSettings): Promise<boolean> {
  const requests = settings.floodRequests;
  console.log(
    `${requests} anonymous GETs of the authorization endpoint, state and nonce of ${PARAMETER_LENGTH} characters, ${settings.connections} connections`,
  );
  const figures = new Map<string, MemoryFigures>();
  for (const [label, start] of [
    ['gatehouse serve (memory store, defaults)', startStandaloneTarget],
    ['oidc-provider v9', startOidcProvider],
  ] as const) {
    const target = await start();
    try {
      figures.set(label, await flood(target, requests, settings.connections));
    } finally {
      await target.stop();
    }
    console.log(`measured ${label}`);
  }
  console.log(`\n${memoryTable(figures)}`);
  return [...figures.values()].every((figure) => figure.failures === 0);
}

async function flood(
  target: FloodTarget,
  requests: number,
  connections: number,
): Promise<MemoryFigures> {
  await checkRedirectsToLogin(target.url);
  const idle = await residentBytes(target.pid);
  let peak = idle;
  let died = false;
  const sampler = setInterval(async () => {
    peak = Math.max(peak, (await residentBytes(target.pid).catch(() => 0)) || 0);
  }, SAMPLE_EVERY_MS);
  const run = autocannon({ url: target.url, method: 'GET', connections, amount: requests });
  void target.exited.then(() => {
    died = true;
    run.stop();
  });
  const result = await run;
  clearInterval(sampler);
  const after = died ? undefined : await residentBytes(target.pid);
  const redirects = result['3xx'] ?? 0;
  return {
    requests: result.requests.total,
    seconds: result.duration,
    idle,
    peak: Math.max(peak, after ?? 0),
    after,
    failures: result.requests.total - redirects + result.errors + result.timeouts,
    note: died ? `died after about ${result.requests.total} requests` : await target.note(),
  };
}

/** The first request, checked: a redirect to the server's login page, nothing else. */
async function checkRedirectsToLogin(url: string): Promise<void> {
  const response = await fetch(url, { redirect: 'manual' });
  const location = response.headers.get('location') ?? '';
  if (response.status < 300 || response.status > 399 || !location.includes('/interaction/')) {
    throw new Error(`${url} answered ${response.status} to ${location}, not the login page`);
  }
}

const filler = (name: string) =>
  `${name}-`.padEnd(PARAMETER_LENGTH, 'abcdefghijklmnopqrstuvwxyz0123456789');

/** The same authorization request for both: the web client, PKCE, long state and nonce. */
function authorizeQuery(): string {
  return new URLSearchParams({
    response_type: 'code',
    client_id: BENCH_WEB_CLIENT_ID,
    redirect_uri: BENCH_REDIRECT_URI,
    scope: 'openid',
    state: filler('state'),
    nonce: filler('nonce'),
    code_challenge: BENCH_CODE_CHALLENGE,
    code_challenge_method: 'S256',
  }).toString();
}

/** `gatehouse serve` from the working tree's sources, with every limit at its default. */
async function startStandaloneTarget(): Promise<FloodTarget> {
  const server = await startStandalone({
    realms: [
      {
        name: 'bench',
        scopes: ['openid'],
        clients: [
          {
            client_id: BENCH_WEB_CLIENT_ID,
            client_secret: BENCH_WEB_CLIENT_SECRET,
            token_endpoint_auth_method: 'client_secret_post',
            redirect_uris: [BENCH_REDIRECT_URI],
            scope: 'openid',
          },
        ],
      },
    ],
  });
  return {
    url: `${server.origin}/oauth/bench/authorize?${authorizeQuery()}`,
    pid: server.pid,
    exited: server.exited,
    async note() {
      const response = await server.admin('/store');
      const { records, evicted, shed } = (await response.json()) as Record<string, number>;
      return `${records} records held, ${evicted} interactions evicted by the realm cap, ${shed} shed at the ceiling`;
    },
    stop: () => server.stop(),
  };
}

async function startOidcProvider(): Promise<FloodTarget> {
  const server = await launchServer('oidc-provider');
  return {
    url: `${server.baseUrl}/auth?${authorizeQuery()}`,
    pid: server.pid,
    exited: server.exited,
    note: async () => 'every interaction kept for its 1-hour lifetime',
    stop: () => server.stop(),
  };
}

const mib = (bytes: number | undefined) =>
  bytes === undefined ? '—' : `${Math.round(bytes / (1024 * 1024))} MiB`;

function memoryTable(figures: ReadonlyMap<string, MemoryFigures>): string {
  const rows = [...figures].map(
    ([label, f]) =>
      `| ${label} | ${f.requests} | ${Math.round(f.requests / f.seconds)} | ${mib(f.idle)} | ${mib(f.peak)} | ${mib(f.after)} | ${f.failures} | ${f.note} |`,
  );
  return [
    '| server | requests | req/s | RSS idle | RSS peak | RSS after | failures | store |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...rows,
  ].join('\n');
}
