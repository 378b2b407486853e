import { createProvider, type Provider } from '@gatehouse-oidc/core';
import { nodeCryptoSigner, nodeCryptoVerifier } from '@gatehouse-oidc/node-crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { cpuMicrosPerCall, median } from './cpu-rounds.js';
import { es256Operations } from './es256-floor.js';

/**
 * `delegation_grants` in `pnpm bench` (`pnpm --filter @gatehouse-oidc/bench delegation-grants`
 * alone): what the delegation grants cost beside client_credentials in the same process (issue
 * 22: at most 1.5×, printed, not asserted). Measured in process (`provider.handle`, no HTTP,
 * memory store, the node:crypto signer and verifier) in CPU time per request, a round of each
 * request in turn. Token exchange presents a
 * client credentials token of the same realm; jwt-bearer an ID-JAG signed by a trusted issuer
 * with its keys configured, all made before the first round (an ID-JAG is accepted once, and
 * making it is the identity provider's cost, not ours: made before each round, collecting what
 * making them left behind was counted in that round's requests).
 *
 * Beside them, each round, the floor: one ES256 signature and one verification on `node:crypto`
 * (`es256-floor.ts`). client_credentials signs one token; each delegation grant also verifies
 * one, so neither can cost less than client_credentials plus a verification, and the target is
 * out of reach whenever a verification costs more than half a client_credentials request.
 */

/** Issue 22's bound on each delegation grant's CPU per request, in client_credentials'. */
export const DELEGATION_RATIO_TARGET = 1.5;

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const API = 'https://api.example.com';
const REPORTS = 'https://reports.example.com';
const IDP = 'https://idp.example.com';
const SECRET = 'bench-secret-0123456789abcdef';

/** Each request's median CPU µs per request, client_credentials first, and the crypto's. */
export interface DelegationFigures {
  readonly rounds: number;
  readonly requestsPerRound: number;
  readonly rows: ReadonlyArray<{ readonly name: string; readonly micros: number }>;
  /** Median CPU µs of one ES256 signature and of one verification, measured between the rows. */
  readonly floor: { readonly sign: number; readonly verify: number };
}

export async function measureDelegationGrants(
  rounds: number,
  requestsPerRound = 1_000,
): Promise<DelegationFigures> {
  const idp = await generateKeyPair('ES256');
  const idpKey = { ...(await exportJWK(idp.publicKey)), kid: 'idp', alg: 'ES256' };

  const provider: Provider = createProvider({
    baseUrl: 'http://127.0.0.1',
    signer: nodeCryptoSigner(),
    verifier: nodeCryptoVerifier(),
    realms: [
      {
        name: 'bench',
        scopes: ['openid', 'api:read', 'reports:read'],
        resources: [
          { uri: API, client_id: 'api', scopes: ['api:read', 'reports:read'] },
          { uri: REPORTS, client_id: 'api', scopes: ['reports:read'] },
        ],
        trusted_issuers: [{ issuer: IDP, jwks: { keys: [idpKey as never] }, profile: 'id-jag' }],
        clients: [
          {
            client_id: 'service',
            client_secret: SECRET,
            token_endpoint_auth_method: 'client_secret_post',
            grant_types: ['client_credentials', TOKEN_EXCHANGE, JWT_BEARER],
            scope: 'api:read reports:read',
            token_exchange: { resources: [REPORTS] },
          },
          { client_id: 'api', client_secret: SECRET, grant_types: [] },
        ],
      },
    ],
  });

  const tokenRequest = (fields: Record<string, string>) => ({
    method: 'POST',
    path: '/oauth/bench/token',
    query: '',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      ...fields,
      client_id: 'service',
      client_secret: SECRET,
    }).toString(),
  });

  const clientCredentials = tokenRequest({ grant_type: 'client_credentials', resource: API });
  const subject = JSON.parse((await provider.handle(clientCredentials)).body ?? '{}').access_token;
  const tokenExchange = tokenRequest({
    grant_type: TOKEN_EXCHANGE,
    subject_token: subject,
    subject_token_type: ACCESS_TOKEN_TYPE,
    resource: REPORTS,
  });

  const idJag = () =>
    new SignJWT({ client_id: 'service', resource: API, scope: 'api:read' })
      .setProtectedHeader({ alg: 'ES256', kid: 'idp', typ: 'oauth-id-jag+jwt' })
      .setIssuer(IDP)
      .setSubject('alice')
      .setAudience('http://127.0.0.1/oauth/bench')
      .setJti(crypto.randomUUID())
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(idp.privateKey);

  type Requests = () => Array<ReturnType<typeof tokenRequest>>;
  const same =
    (request: ReturnType<typeof tokenRequest>): Requests =>
    () =>
      Array.from({ length: requestsPerRound }, () => request);
  // The warm-up round's and every measured round's.
  const idJags = await Promise.all(Array.from({ length: (rounds + 1) * requestsPerRound }, idJag));

  const ROWS: ReadonlyArray<[string, Requests]> = [
    ['client_credentials', same(clientCredentials)],
    ['token exchange', same(tokenExchange)],
    [
      'jwt-bearer (ID-JAG)',
      () =>
        idJags
          .splice(0, requestsPerRound)
          .map((assertion) => tokenRequest({ grant_type: JWT_BEARER, assertion })),
    ],
  ];

  /** CPU microseconds per request over one round of sequential requests. */
  async function round(requests: Requests): Promise<number> {
    const prepared = requests();
    const started = process.cpuUsage();
    for (const request of prepared) {
      const response = await provider.handle(request);
      if (response.status !== 200) throw new Error(`token request failed: ${response.body}`);
    }
    const { user, system } = process.cpuUsage(started);
    return (user + system) / prepared.length;
  }

  const es256 = es256Operations(subject.split('.').slice(0, 2).join('.'));
  const floorRound = async () => [
    await cpuMicrosPerCall(es256.sign, requestsPerRound),
    await cpuMicrosPerCall(es256.verify, requestsPerRound),
  ];

  for (const [, requests] of ROWS) await round(requests);
  await floorRound();
  const timings = ROWS.map(() => [] as number[]);
  const signs: number[] = [];
  const verifications: number[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const [index, [, requests]] of ROWS.entries()) timings[index]?.push(await round(requests));
    const [sign = Number.NaN, verify = Number.NaN] = await floorRound();
    signs.push(sign);
    verifications.push(verify);
  }
  await provider.close();
  return {
    rounds,
    requestsPerRound,
    rows: ROWS.map(([name], index) => ({ name, micros: median(timings[index] ?? []) })),
    floor: { sign: median(signs), verify: median(verifications) },
  };
}

export function delegationLines({
  rounds,
  requestsPerRound,
  rows,
  floor,
}: DelegationFigures): string[] {
  const base = rows[0]?.micros ?? Number.NaN;
  const target = `${DELEGATION_RATIO_TARGET.toFixed(2)}×`;
  const least = (base + floor.verify) / base;
  return [
    `token requests in process, ${rounds} rounds of ${requestsPerRound}, median CPU µs per request`,
    ...rows.map(({ name, micros }, index) => {
      const ratio =
        index === 0
          ? ''
          : `  ${(micros / base).toFixed(2)}× client_credentials (target ≤ ${target})`;
      return `${name.padEnd(22)} ${micros.toFixed(1).padStart(7)}${ratio}`;
    }),
    `floor, ES256 on node:crypto between the rows: sign ${floor.sign.toFixed(1)} µs, verify ${floor.verify.toFixed(1)} µs`,
    `  crypto alone, (sign + verify) / sign: ${((floor.sign + floor.verify) / floor.sign).toFixed(2)}×`,
    `  least a delegation grant can cost, (client_credentials + verify) / client_credentials: ${least.toFixed(2)}× ` +
      `(target ≤ ${target}: ${least <= DELEGATION_RATIO_TARGET ? 'within reach' : 'below the cryptography’s floor'})`,
  ];
}
