import { createProvider, type GatehouseRequest, type Provider } from '@gatehouse-oidc/core';
import { nodeCryptoSigner, nodeCryptoVerifier } from '@gatehouse-oidc/node-crypto';
import { cpuMicrosPerCall, median } from './cpu-rounds.js';

/**
 * What dynamic client registration costs (issue 20): a registration (RFC 7591) on its own, and a
 * client_credentials token request from a registered client against the same request from a
 * configured one. Measured in process (`provider.handle`, no HTTP, the memory store) in CPU time
 * per request, rounds of one kind alternating with the other in the same process. The registered
 * client is read from the store at every request; its last use is written at most once a day.
 */

const ROUNDS = Number(process.env.ROUNDS ?? 8);
const REQUESTS_PER_ROUND = Number(process.env.REQUESTS ?? 1_000);
const SECRET = 'a-configured-secret-of-the-bench-client-0123';

const provider: Provider = createProvider({
  baseUrl: 'http://127.0.0.1',
  signer: nodeCryptoSigner(),
  verifier: nodeCryptoVerifier(),
  realms: [
    {
      name: 'bench',
      scopes: ['openid', 'api:read'],
      registration: { open: true, max_clients: 100_000, grant_types: ['client_credentials'] },
      clients: [
        {
          client_id: 'configured-machine',
          client_secret: SECRET,
          grant_types: ['client_credentials'],
          scope: 'api:read',
        },
      ],
    },
  ],
});

const registration: GatehouseRequest = {
  method: 'POST',
  path: '/oauth/bench/register',
  query: '',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ grant_types: ['client_credentials'], scope: 'api:read' }),
};

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

const tokenRequest = (clientId: string, secret: string): GatehouseRequest => ({
  method: 'POST',
  path: '/oauth/bench/token',
  query: '',
  headers: {
    'content-type': 'application/x-www-form-urlencoded',
    authorization: basic(clientId, secret),
  },
  body: 'grant_type=client_credentials',
});

async function answered(request: GatehouseRequest, status: number): Promise<string> {
  const response = await provider.handle(request);
  if (response.status !== status) throw new Error(`${request.path}: ${response.body}`);
  return response.body ?? '';
}

const registered = JSON.parse(await answered(registration, 201)) as Record<string, string>;
const requests = {
  register: registration,
  configured: tokenRequest('configured-machine', SECRET),
  registered: tokenRequest(registered.client_id ?? '', registered.client_secret ?? ''),
};
const statuses = { register: 201, configured: 200, registered: 200 };
type Kind = keyof typeof requests;
const round = (kind: Kind) =>
  cpuMicrosPerCall(async () => {
    await answered(requests[kind], statuses[kind]);
  }, REQUESTS_PER_ROUND);

// Registrations last in each round: the garbage they leave is not charged to the token requests.
const kinds: Kind[] = ['configured', 'registered', 'register'];
for (const kind of kinds) await round(kind);
const timings: Record<Kind, number[]> = { register: [], configured: [], registered: [] };
for (let r = 0; r < ROUNDS; r++) for (const kind of kinds) timings[kind].push(await round(kind));
await provider.close();

const base = median(timings.configured);
console.log(`${ROUNDS} rounds of ${REQUESTS_PER_ROUND}, median CPU µs per request`);
console.log(
  `registration (RFC 7591)              ${median(timings.register).toFixed(1).padStart(7)}`,
);
console.log(`token request, configured client     ${base.toFixed(1).padStart(7)}`);
const reg = median(timings.registered);
console.log(
  `token request, registered client     ${reg.toFixed(1).padStart(7)}  ${(reg / base).toFixed(2)}×`,
);
