import { createProvider } from '@gatehouse-oidc/core';
import { fakeClock } from '@gatehouse-oidc/core/testing';
import { clientKeyPair, testRealm } from '../support/fixtures.js';
import type { Mount } from './hono-host.js';

// What the adapter contract suite mounts, built alike in the test process and inside the runtimes
// of test/runtimes (which bundle this module): nothing here may import Node.

export const BASE_URL = 'https://idp.example.test/auth';
export const SECOND_BASE_URL = 'https://second.example.test/tenants/two';
export const PREFIX = '/auth';
export const SECOND_PREFIX = '/tenants/two';
export const MAX_BODY_BYTES = 4096;

/**
 * The suite's two mounts: a provider with a small body limit, whose metadata the host's root
 * answers too, and one under another base URL.
 */
export async function contractMounts(): Promise<{ mounts: Mount[]; close(): Promise<void> }> {
  const clock = fakeClock();
  const realms = [testRealm(await clientKeyPair())];
  const provider = createProvider({
    baseUrl: BASE_URL,
    realms,
    now: clock.now,
    maxBodyBytes: MAX_BODY_BYTES,
  });
  const secondProvider = createProvider({ baseUrl: SECOND_BASE_URL, realms, now: clock.now });
  return {
    mounts: [
      { prefix: PREFIX, provider, atHostRoot: true },
      { prefix: SECOND_PREFIX, provider: secondProvider },
    ],
    async close() {
      await provider.close();
      await secondProvider.close();
    },
  };
}
