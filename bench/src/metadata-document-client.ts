import { createProvider, type Provider } from '@gatehouse-oidc/core';
import { nodeCryptoSigner, nodeCryptoVerifier } from '@gatehouse-oidc/node-crypto';
import { cpuMicrosPerCall, median } from './cpu-rounds.js';

/**
 * What an authorization request costs from a client known by its Client ID Metadata Document,
 * its document kept, against the same request from a configured client (issue 20: at most
 * 1.1×). Measured in process (`provider.handle`, no HTTP) in CPU time per request, each round of
 * one client followed by a round of the other in the same process, the document answered by a
 * fetch that is never called once it is kept. The request ends at the redirect to the login
 * page: validation, the client lookup, and the interaction written to the memory store.
 */

const ROUNDS = Number(process.env.ROUNDS ?? 8);
const REQUESTS_PER_ROUND = Number(process.env.REQUESTS ?? 2_000);

const AGENT = 'https://agent.example.com/oauth/client.json';
const REDIRECT_URI = 'http://127.0.0.1/callback';
const DOCUMENT = { client_id: AGENT, client_name: 'Agent', redirect_uris: [REDIRECT_URI] };

const provider: Provider = createProvider({
  baseUrl: 'http://127.0.0.1',
  signer: nodeCryptoSigner(),
  verifier: nodeCryptoVerifier(),
  realms: [
    {
      name: 'bench',
      client_id_metadata_documents: { enabled: true, private_networks: true },
      clients: [
        {
          client_id: 'configured-agent',
          client_name: 'Agent',
          application_type: 'native',
          token_endpoint_auth_method: 'none',
          redirect_uris: [REDIRECT_URI],
        },
      ],
    },
  ],
  // A cached document is never fetched again within the day this run takes.
  fetch: async () => Response.json(DOCUMENT, { headers: { 'cache-control': 'max-age=86400' } }),
});

const requestOf = (clientId: string) => ({
  method: 'GET',
  path: '/oauth/bench/authorize',
  query: new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:49152/callback',
    scope: 'openid',
    code_challenge: 'JxaoggWE3_JouxrySheB-QXvqWYOfCFMUvaVBuJxIMs',
    code_challenge_method: 'S256',
  }).toString(),
  headers: {},
});

/** CPU microseconds per request over one round of sequential requests. */
const round = (request: ReturnType<typeof requestOf>): Promise<number> =>
  cpuMicrosPerCall(async () => {
    const response = await provider.handle(request);
    if (response.status !== 302) throw new Error(`authorization failed: ${response.body}`);
  }, REQUESTS_PER_ROUND);

const configured = requestOf('configured-agent');
const fromDocument = requestOf(AGENT);
await round(configured);
await round(fromDocument);
const timings = { configured: [] as number[], fromDocument: [] as number[] };
for (let r = 0; r < ROUNDS; r++) {
  timings.configured.push(await round(configured));
  timings.fromDocument.push(await round(fromDocument));
}
await provider.close();

const base = median(timings.configured);
const cimd = median(timings.fromDocument);
console.log(
  `authorization request, ${ROUNDS} rounds of ${REQUESTS_PER_ROUND}, median CPU µs per request`,
);
console.log(`configured client              ${base.toFixed(1).padStart(7)}`);
console.log(
  `metadata document client (kept) ${cimd.toFixed(1).padStart(7)}  ${(cimd / base).toFixed(2)}× (target ≤ 1.10×)`,
);
