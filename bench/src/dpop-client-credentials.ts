import { createProvider, type GatehouseRequest, type Provider } from '@gatehouse-oidc/core';
import { nodeCryptoSigner, nodeCryptoVerifier } from '@gatehouse-oidc/node-crypto';
import { dpopKey } from '../../test/support/dpop.js';
import { median } from './cpu-rounds.js';
import { proofsOf } from './dpop-proofs.js';
import { BENCH_SERVICE_CLIENT, TOKEN_REQUEST_BODY } from './token-request.js';

/**
 * What a DPoP proof costs a client_credentials request (issue 21): the request with a proof
 * (ES256, nonces off), beside the same request without one. Measured in process
 * (`provider.handle`, no HTTP) in CPU time per request, rounds of one followed by rounds of the
 * other, on the memory store. The proofs are signed before each round — that is the client's
 * work — and each is sent once, as they must be. The difference is the proof check: its
 * signature, claims, thumbprint and `jti` record. oidc-provider with DPoP is measured beside ours
 * over HTTP by `pnpm bench` (the dpop_client_credentials scenario).
 */

const ROUNDS = Number(process.env.ROUNDS ?? 8);
const REQUESTS_PER_ROUND = Number(process.env.REQUESTS ?? 2_000);
const BASE_URL = 'http://127.0.0.1';
const TOKEN_PATH = '/oauth/bench/token';

const provider: Provider = createProvider({
  baseUrl: BASE_URL,
  signer: nodeCryptoSigner(),
  verifier: nodeCryptoVerifier(),
  realms: [
    {
      name: 'bench',
      scopes: ['openid', BENCH_SERVICE_CLIENT.scope],
      resources: [{ uri: 'https://api.example.com', client_id: 'bench-api', scopes: ['api:read'] }],
      clients: [
        BENCH_SERVICE_CLIENT,
        { client_id: 'bench-api', client_secret: 'bench-api-secret-0123456789', grant_types: [] },
      ],
    },
  ],
});

const key = await dpopKey();

const request = (dpop?: string): GatehouseRequest => ({
  method: 'POST',
  path: TOKEN_PATH,
  query: '',
  headers: {
    'content-type': 'application/x-www-form-urlencoded',
    ...(dpop === undefined ? {} : { dpop }),
  },
  body: TOKEN_REQUEST_BODY,
});

/** CPU microseconds per request over one round; with `dpop`, each request carries its own proof. */
async function round(dpop: boolean): Promise<number> {
  const signed = dpop ? await proofsOf(key, `${BASE_URL}${TOKEN_PATH}`, REQUESTS_PER_ROUND) : [];
  const started = process.cpuUsage();
  for (let i = 0; i < REQUESTS_PER_ROUND; i++) {
    const response = await provider.handle(request(signed[i]));
    const tokenType = JSON.parse(response.body ?? '{}').token_type;
    if (response.status !== 200 || tokenType !== (dpop ? 'DPoP' : 'Bearer')) {
      throw new Error(`token request failed: ${response.status} ${response.body}`);
    }
  }
  const { user, system } = process.cpuUsage(started);
  return (user + system) / REQUESTS_PER_ROUND;
}

await round(false);
await round(true);
const timings = { bearer: [] as number[], dpop: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  timings.bearer.push(await round(false));
  timings.dpop.push(await round(true));
}
await provider.close();

const bearer = median(timings.bearer);
const dpop = median(timings.dpop);
console.log(
  `client_credentials, ${ROUNDS} rounds of ${REQUESTS_PER_ROUND}, median CPU µs per request`,
);
console.log(`Bearer                  ${bearer.toFixed(1).padStart(7)}`);
console.log(
  `DPoP-bound (ES256 proof) ${dpop.toFixed(1).padStart(7)}  ${(dpop / bearer).toFixed(2)}×, the proof check ${(dpop - bearer).toFixed(1)} µs`,
);
