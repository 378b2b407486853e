import { execFile } from 'node:child_process';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import type { StoreMetrics } from '@gatehouse-oidc/core';
import { type Instance, startInstances } from '../multi-instance/instances.js';
import { ADMIN_TOKEN, configDir, killAllCli, validConfig, withChanges } from '../server/support.js';
import { type ClientKeyPair, clientAssertion, form } from '../support/fixtures.js';

/**
 * The standalone server as an operator runs it (`gatehouse serve`, its own process), for the
 * proofs of issue 13: what an attacker on the loopback can make it spend, measured from outside.
 */

/** The base_url of every config here; instances listen elsewhere, paths are what count. */
export const BASE_URL = 'http://127.0.0.1:3000';
export const ISSUER = `${BASE_URL}/oauth/demo`;

export interface Standalone extends Instance {
  /** The server process's resident memory, in bytes. */
  rss(): Promise<number>;
  /** `GET /admin/store`: the store's own counters. */
  storeMetrics(): Promise<StoreMetrics>;
  stop(): Promise<void>;
}

/** Starts `gatehouse serve` with `config` (a config file's content) on a free loopback port. */
export async function startStandalone(config: object): Promise<Standalone> {
  const dir = configDir();
  const file = dir.write('gatehouse.json', config);
  let instance: Instance;
  try {
    [instance] = (await startInstances(file, BASE_URL, ['standalone'])) as [Instance];
  } catch (error) {
    killAllCli();
    dir.remove();
    throw error;
  }
  const pid = instance.cli.child.pid as number;
  return {
    ...instance,
    rss: () => residentBytes(pid),
    async storeMetrics() {
      const response = await instance.fetch('/admin/store', {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      if (response.status !== 200) throw new Error(`GET /admin/store: ${response.status}`);
      return (await response.json()) as StoreMetrics;
    },
    async stop() {
      instance.cli.kill();
      await instance.cli.exited;
      dir.remove();
    },
  };
}

/** Resident set size of a process, as `ps` reports it (KiB) on Linux and macOS. */
async function residentBytes(pid: number): Promise<number> {
  const { stdout } = await promisify(execFile)('ps', ['-o', 'rss=', '-p', String(pid)]);
  return Number(stdout.trim()) * 1024;
}

/** How long `GET /healthz` takes to answer 200, in milliseconds (throws on any other answer). */
export async function healthzMs(server: Instance): Promise<number> {
  const started = performance.now();
  const response = await server.fetch('/healthz', { signal: AbortSignal.timeout(5_000) });
  if (response.status !== 200) throw new Error(`/healthz answered ${response.status}`);
  return performance.now() - started;
}

/** test/server's validConfig() with `clients` added to its realm. */
export function configWithClients(...clients: object[]): Record<string, unknown> {
  const base = validConfig();
  return withChanges(base, {
    'realms.0.clients': [...(base.realms[0]?.clients ?? []), ...clients],
  });
}

/** A private_key_jwt client whose keys are at `jwksUri`. */
export const keyClient = (clientId: string, jwksUri: string) => ({
  client_id: clientId,
  token_endpoint_auth_method: 'private_key_jwt',
  jwks_uri: jwksUri,
  grant_types: ['client_credentials'],
  scope: 'api:read',
});

/** A client_credentials request of `clientId` with an assertion signed by `keys`, under `kid`. */
export async function assertionTokenRequest(
  server: Instance,
  clientId: string,
  keys: ClientKeyPair,
  kid = keys.publicJwk.kid,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const assertion = await clientAssertion(
    keys.privateKey,
    'ES256',
    { iss: clientId, aud: ISSUER },
    { kid },
  );
  const response = await server.fetch('/oauth/demo/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form({
      grant_type: 'client_credentials',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** An HTTP server on a loopback port; `close` also ends the connections it still holds. */
export async function loopbackServer(listener: RequestListener) {
  const server: Server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
