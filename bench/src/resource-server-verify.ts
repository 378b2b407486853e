import { createResourceServer, type ResourceServer } from '@gatehouse-oidc/resource-server';
import {
  type CryptoKey,
  exportJWK,
  generateKeyPair,
  type JWTVerifyOptions,
  jwtVerify,
  SignJWT,
} from 'jose';

/**
 * The `resource_server_verify` scenario: what the resource-server kit's check of a request with a
 * JWT access token costs (`verify` of a Web Request: Authorization header, ES256 signature with
 * the issuer's keys already fetched, RFC 9068 claims, scopes) beside jose's bare `jwtVerify` of
 * the same token with the public key in hand, its floor. In process, calls awaited one at a time;
 * CPU time of the whole process (WebCrypto's verification runs on libuv's threads), per call.
 * The two take turns, round after round; the fastest and the median round of each are reported
 * with their ratios (on a busy machine the fastest is the better estimate of the cost).
 */

/** CPU microseconds per call over the measured rounds. */
export interface PerCall {
  readonly fastest: number;
  readonly median: number;
}

export interface VerifyFigures {
  /** The kit's `verify`. */
  readonly kit: PerCall;
  /** jose's `jwtVerify`. */
  readonly jose: PerCall;
  readonly calls: number;
  readonly rounds: number;
}

/** The target of issue 20: the kit's verification at most this many times jose's. */
export const VERIFY_RATIO_TARGET = 1.2;

const ISSUER = 'https://id.example.com/oauth/bench';
const RESOURCE = 'https://api.example.com';
const JWKS_URI = `${ISSUER}/jwks`;

interface Setup {
  kit: () => Promise<unknown>;
  jose: () => Promise<unknown>;
}

async function setup(): Promise<Setup> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256' };
  const token = await benchToken(privateKey);
  const server: ResourceServer = createResourceServer({
    resource: RESOURCE,
    issuer: ISSUER,
    jwksUri: JWKS_URI,
    scopes: ['api:read'],
    fetch: async () => Response.json({ keys: [jwk] }),
  });
  const request = new Request(`${RESOURCE}/things`, {
    headers: { authorization: `Bearer ${token}` },
  });
  const options: JWTVerifyOptions = {
    issuer: ISSUER,
    audience: RESOURCE,
    algorithms: ['ES256'],
    typ: 'at+jwt',
  };
  const kit = async () => {
    const verdict = await server.verify(request);
    if (!verdict.ok) throw new Error(`the kit refused the bench token: ${verdict.body}`);
  };
  await kit(); // fetches the keys once, as a running server has
  return { kit, jose: () => jwtVerify(token, publicKey, options) };
}

function benchToken(key: CryptoKey): Promise<string> {
  return new SignJWT({ client_id: 'bench', scope: 'api:read', jti: 'bench-token' })
    .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'bench' })
    .setIssuer(ISSUER)
    .setAudience(RESOURCE)
    .setSubject('bench')
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(key);
}

async function cpuMicrosPerCall(call: () => Promise<unknown>, calls: number): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < calls; i++) await call();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / calls;
}

function perCall(rounds: number[]): PerCall {
  const sorted = [...rounds].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median =
    sorted.length % 2 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  return { fastest: sorted[0] ?? 0, median: median ?? 0 };
}

/** Warms both up with a round, then measures `rounds` rounds of `calls` calls each, in turns. */
export async function measureVerification(calls: number, rounds: number): Promise<VerifyFigures> {
  const { kit, jose } = await setup();
  await cpuMicrosPerCall(kit, calls);
  await cpuMicrosPerCall(jose, calls);
  const kitRounds: number[] = [];
  const joseRounds: number[] = [];
  for (let round = 0; round < rounds; round++) {
    kitRounds.push(await cpuMicrosPerCall(kit, calls));
    joseRounds.push(await cpuMicrosPerCall(jose, calls));
  }
  return { kit: perCall(kitRounds), jose: perCall(joseRounds), calls, rounds };
}

/** What the bench prints of a measurement. */
export function verificationLines({ kit, jose, calls, rounds }: VerifyFigures): string[] {
  const micros = (value: number) => `${value.toFixed(1)} µs`.padStart(9);
  const ratio = (of: keyof PerCall) => {
    const value = kit[of] / jose[of];
    const verdict = value <= VERIFY_RATIO_TARGET ? 'within' : 'MISSES';
    return `${value.toFixed(2)}× (${verdict} ${VERIFY_RATIO_TARGET}×)`;
  };
  return [
    `ES256 JWT access token, keys cached; CPU per call over ${rounds} rounds of ${calls} calls`,
    '                          fastest     median',
    `resource-server verify  ${micros(kit.fastest)}  ${micros(kit.median)}`,
    `jose jwtVerify          ${micros(jose.fastest)}  ${micros(jose.median)}`,
    `ratio to jose: fastest ${ratio('fastest')}, median ${ratio('median')}`,
  ];
}
