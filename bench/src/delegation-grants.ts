import { createProvider, type Provider } from '@gatehouse-oidc/core';
import { nodeCryptoSigner, nodeCryptoVerifier } from '@gatehouse-oidc/node-crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { median } from './cpu-rounds.js';

/**
 * `delegation_grants` in `pnpm bench` (`pnpm --filter @gatehouse-oidc/bench delegation-grants`
 * alone): what the delegation grants cost beside client_credentials in the same process (issue
 * 22: at most 1.5×, printed, not asserted). Measured in process (`provider.handle`, no HTTP,
 * memory store, the node:crypto signer and verifier) in CPU time per request, a round of each
 * request in turn. Token exchange presents a
 * client credentials token of the same realm; jwt-bearer an ID-JAG signed by a trusted issuer
 * with its keys configured, each one made before its round (an ID-JAG is accepted once, and
 * making it is the identity provider's cost, not ours).
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

/** Each request's median CPU µs per request, client_credentials first. */
export interface DelegationFigures {
  readonly rounds: number;
  readonly requestsPerRound: number;
  readonly rows: ReadonlyArray<{ readonly name: string; readonly micros: number }>;
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

  type Requests = () => Promise<Array<ReturnType<typeof tokenRequest>>>;
  const same =
    (request: ReturnType<typeof tokenRequest>): Requests =>
    async () =>
      Array.from({ length: requestsPerRound }, () => request);

  const ROWS: ReadonlyArray<[string, Requests]> = [
    ['client_credentials', same(clientCredentials)],
    ['token exchange', same(tokenExchange)],
    [
      'jwt-bearer (ID-JAG)',
      async () =>
        Promise.all(
          Array.from({ length: requestsPerRound }, async () =>
            tokenRequest({ grant_type: JWT_BEARER, assertion: await idJag() }),
          ),
        ),
    ],
  ];

  /** CPU microseconds per request over one round of sequential requests. */
  async function round(requests: Requests): Promise<number> {
    const prepared = await requests();
    const started = process.cpuUsage();
    for (const request of prepared) {
      const response = await provider.handle(request);
      if (response.status !== 200) throw new Error(`token request failed: ${response.body}`);
    }
    const { user, system } = process.cpuUsage(started);
    return (user + system) / prepared.length;
  }

  for (const [, requests] of ROWS) await round(requests);
  const timings = ROWS.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    for (const [index, [, requests]] of ROWS.entries()) timings[index]?.push(await round(requests));
  }
  await provider.close();
  return {
    rounds,
    requestsPerRound,
    rows: ROWS.map(([name], index) => ({ name, micros: median(timings[index] ?? []) })),
  };
}

export function delegationLines({ rounds, requestsPerRound, rows }: DelegationFigures): string[] {
  const base = rows[0]?.micros ?? Number.NaN;
  return [
    `token requests in process, ${rounds} rounds of ${requestsPerRound}, median CPU µs per request`,
    ...rows.map(({ name, micros }, index) => {
      const ratio =
        index === 0
          ? ''
          : `  ${(micros / base).toFixed(2)}× client_credentials (target ≤ ${DELEGATION_RATIO_TARGET.toFixed(2)}×)`;
      return `${name.padEnd(22)} ${micros.toFixed(1).padStart(7)}${ratio}`;
    }),
  ];
}
