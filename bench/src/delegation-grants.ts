import { createProvider, type Provider } from '@gatehouse-oidc/core';
import { nodeCryptoSigner, nodeCryptoVerifier } from '@gatehouse-oidc/node-crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/**
 * What the delegation grants cost beside client_credentials in the same process (issue 22: at
 * most 1.5×, printed, not asserted). Measured in process (`provider.handle`, no HTTP, memory
 * store) in CPU time per request, a round of each request in turn. Token exchange presents a
 * client credentials token of the same realm; jwt-bearer an ID-JAG signed by a trusted issuer
 * with its keys configured, each one made before its round (an ID-JAG is accepted once, and
 * making it is the identity provider's cost, not ours).
 */

const ROUNDS = Number(process.env.ROUNDS ?? 8);
const REQUESTS_PER_ROUND = Number(process.env.REQUESTS ?? 1_000);

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const API = 'https://api.example.com';
const REPORTS = 'https://reports.example.com';
const IDP = 'https://idp.example.com';
const SECRET = 'bench-secret-0123456789abcdef';

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
  body: new URLSearchParams({ ...fields, client_id: 'service', client_secret: SECRET }).toString(),
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
    Array.from({ length: REQUESTS_PER_ROUND }, () => request);

const ROWS: ReadonlyArray<[string, Requests]> = [
  ['client_credentials', same(clientCredentials)],
  ['token exchange', same(tokenExchange)],
  [
    'jwt-bearer (ID-JAG)',
    async () =>
      Promise.all(
        Array.from({ length: REQUESTS_PER_ROUND }, async () =>
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
for (let r = 0; r < ROUNDS; r++) {
  for (const [index, [, requests]] of ROWS.entries()) timings[index]?.push(await round(requests));
}
await provider.close();

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const medians = timings.map(median);
const base = medians[0] ?? Number.NaN;
console.log(`token requests, ${ROUNDS} rounds of ${REQUESTS_PER_ROUND}, median CPU µs per request`);
for (const [index, [name]] of ROWS.entries()) {
  const value = medians[index] ?? Number.NaN;
  const ratio =
    index === 0 ? '' : `  ${(value / base).toFixed(2)}× client_credentials (target ≤ 1.50×)`;
  console.log(`${name.padEnd(22)} ${value.toFixed(1).padStart(7)}${ratio}`);
}
