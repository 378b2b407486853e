import { generateKeyPairSync, sign, verify } from 'node:crypto';
import { cpuMicrosPerCall, median } from './cpu-rounds.js';
import type { Measurement } from './report.js';
import type { RequestScenarioName } from './scenarios.js';
import type { ServerName } from './server-names.js';

/**
 * The floor of a flow (issue 24): what no implementation can spend less server CPU on per
 * request than — the bare route (the ceiling server: the same form parsed, a fixed JSON answered)
 * plus the ES256 signatures and verifications the flow's answer needs, each measured in the same
 * run. A server's ratio to it says how much its own code adds.
 */

/** The ES256 operations a flow cannot do without. */
export interface FlowCrypto {
  readonly signatures: number;
  readonly verifications: number;
}

/**
 * Per flow: client_credentials signs its JWT access token; the code exchange and the refresh
 * sign an access token and an ID token; a CIBA initiation verifies its `id_token_hint`.
 * Scenarios of other branches add theirs here (a DPoP proof is one more verification).
 */
export const FLOW_CRYPTO: ReadonlyMap<RequestScenarioName, FlowCrypto> = new Map([
  ['client_credentials', { signatures: 1, verifications: 0 }],
  ['authorization_code', { signatures: 2, verifications: 0 }],
  ['refresh_token', { signatures: 2, verifications: 0 }],
  ['ciba_initiation', { signatures: 0, verifications: 1 }],
]);

/** CPU microseconds of one ES256 signature and one verification, as node:crypto makes them. */
export interface CryptoCosts {
  readonly signMicros: number;
  readonly verifyMicros: number;
}

/**
 * One ES256 signature and verification of a JWT-sized input with node:crypto (what the servers'
 * signers call), in this process: the median of `rounds` rounds of `calls` calls each.
 */
export async function measureCryptoCosts(calls = 2_000, rounds = 5): Promise<CryptoCosts> {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const input = Buffer.alloc(400, 'eyJhbGciOiJFUzI1NiJ9.');
  const options = { dsaEncoding: 'ieee-p1363' } as const;
  const signature = sign('sha256', input, { key: privateKey, ...options });
  const signs: number[] = [];
  const verifications: number[] = [];
  for (let round = 0; round < rounds; round++) {
    signs.push(
      await cpuMicrosPerCall(async () => {
        sign('sha256', input, { key: privateKey, ...options });
      }, calls),
    );
    verifications.push(
      await cpuMicrosPerCall(async () => {
        if (!verify('sha256', input, { key: publicKey, ...options }, signature)) {
          throw new Error('the floor measurement signed what it cannot verify');
        }
      }, calls),
    );
  }
  return { signMicros: median(signs), verifyMicros: median(verifications) };
}

/** A flow's floor and what it is made of. */
export interface Floor extends FlowCrypto {
  readonly bareRouteMicros: number;
  readonly costs: CryptoCosts;
  readonly micros: number;
}

export function floorOf(
  scenario: RequestScenarioName,
  bareRouteMicros: number,
  costs: CryptoCosts,
): Floor | undefined {
  const crypto = FLOW_CRYPTO.get(scenario);
  if (!crypto) return undefined;
  const micros =
    bareRouteMicros +
    crypto.signatures * costs.signMicros +
    crypto.verifications * costs.verifyMicros;
  return { ...crypto, bareRouteMicros, costs, micros };
}

/**
 * The flow's floor and what it is made of, then each server's server CPU per request as a
 * multiple of it (the ceiling, which is the bare route, left out).
 */
export function floorLines(
  floor: Floor | undefined,
  results: ReadonlyMap<ServerName, Measurement>,
): string[] {
  if (!floor) return [];
  const parts = [`bare route ${floor.bareRouteMicros.toFixed(0)}`];
  if (floor.signatures > 0)
    parts.push(
      `${floor.signatures} ES256 ${plural('signature', floor.signatures)} × ${floor.costs.signMicros.toFixed(0)}`,
    );
  if (floor.verifications > 0) {
    parts.push(
      `${floor.verifications} ES256 ${plural('verification', floor.verifications)} × ${floor.costs.verifyMicros.toFixed(0)}`,
    );
  }
  return [
    `${'floor'.padEnd(28)} ${floor.micros.toFixed(0).padStart(6)} µs server CPU/req (${parts.join(' + ')})`,
    ...floorRatios(floor, results).map(
      ([name, ratio]) =>
        `${`${name} / floor`.padEnd(28)} ${ratio.toFixed(2).padStart(6)}   (${results.get(name)?.serverCpuMicrosPerRequest.toFixed(0)} µs)`,
    ),
  ];
}

/** Each server's server CPU per request as a multiple of the floor, the ceiling left out. */
export function floorRatios(
  floor: Floor,
  results: ReadonlyMap<ServerName, Measurement>,
): Array<[ServerName, number]> {
  return [...results]
    .filter(([name]) => name !== 'ceiling')
    .map(([name, measured]) => [name, measured.serverCpuMicrosPerRequest / floor.micros]);
}

/** Per server, the median of its rounds' multiples of their floors, and the rounds' own. */
export function medianFloorLines(
  rounds: ReadonlyArray<ReadonlyArray<[ServerName, number]>>,
): string[] {
  const byServer = new Map<ServerName, number[]>();
  for (const round of rounds)
    for (const [name, ratio] of round) byServer.set(name, [...(byServer.get(name) ?? []), ratio]);
  return [...byServer].map(
    ([name, ratios]) =>
      `${`${name} / floor`.padEnd(28)} ${median(ratios).toFixed(2).padStart(6)}   (median of ${ratios.length}: ${ratios.map((ratio) => ratio.toFixed(2)).join(' ')})`,
  );
}

const plural = (word: string, count: number) => (count === 1 ? word : `${word}s`);
