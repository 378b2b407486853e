import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killAllCli } from '../server/support.js';
import { type ClientKeyPair, clientKeyPair } from '../support/fixtures.js';
import {
  assertionTokenRequest,
  configWithClients,
  keyClient,
  loopbackServer,
  type Standalone,
  startStandalone,
} from './standalone.js';

/**
 * Issue 13, finding 1: in 0.4 one assertion naming a `kid` the client's jwks_uri lacks (signed by
 * any key; only the public client_id is needed) made the client's genuine assertions fail with
 * invalid_client for 30 s. Over HTTP against `gatehouse serve`.
 */

let clientKeys: ClientKeyPair;
let strangerKeys: ClientKeyPair;
let jwks: Awaited<ReturnType<typeof loopbackServer>>;
let server: Standalone;
let fetches = 0;

beforeAll(async () => {
  [clientKeys, strangerKeys] = await Promise.all([
    clientKeyPair('ES256', 'client-key'),
    clientKeyPair('ES256', 'stranger-key'),
  ]);
  jwks = await loopbackServer((_request, response) => {
    fetches += 1;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ keys: [clientKeys.publicJwk] }));
  });
  server = await startStandalone(configWithClients(keyClient('signer', `${jwks.origin}/jwks`)));
});

afterAll(async () => {
  await server?.stop();
  killAllCli();
  await jwks?.close();
});

describe('a private_key_jwt client with a jwks_uri, after a stranger forges its assertions', () => {
  it('gets its token with its real assertion right after a forged kid', async () => {
    // The client has used its key before: its key set is fetched and fresh.
    expect((await assertionTokenRequest(server, 'signer', clientKeys)).status).toBe(200);

    for (const kid of ['nope', 'client-key']) {
      const forged = await assertionTokenRequest(server, 'signer', strangerKeys, kid);
      expect(forged.body.error, kid).toBe('invalid_client');
      const real = await assertionTokenRequest(server, 'signer', clientKeys);
      expect(real.status, JSON.stringify(real.body)).toBe(200);
      expect(real.body.access_token).toEqual(expect.any(String));
    }
  });

  it('refetches the set for an unknown kid at most once a minute, whatever a stranger sends', async () => {
    const before = fetches;
    for (let i = 0; i < 10; i++) {
      const forged = await assertionTokenRequest(server, 'signer', strangerKeys, `nope-${i}`);
      expect(forged.body.error).toBe('invalid_client');
    }
    expect(fetches - before).toBeLessThanOrEqual(1);
    expect((await assertionTokenRequest(server, 'signer', clientKeys)).status).toBe(200);
  });
});
