import {
  createProvider,
  type DeviceVerification,
  type Interactions,
  type Provider,
  type ProviderOptions,
  type RealmInput,
} from '@gatehouse-oidc/core';
import type { AdapterHarness } from '../adapters/harnesses.js';

/**
 * The public URL Gatehouse is configured with, as behind a TLS-terminating proxy. A reserved
 * name (RFC 6761): `loopbackFetch` routes it to the local port, so nothing leaves the machine.
 */
export const PUBLIC_ORIGIN = 'https://idp.e2e.test';
const PREFIX = '/auth';

export interface RunningGatehouse {
  /** Realm R's issuer: `{PUBLIC_ORIGIN}{PREFIX}/oauth/R`. */
  issuer(realmName: string): string;
  /** A fetch that sends requests for the public origin to the server on its loopback port. */
  fetch(url: string, init: RequestInit): Promise<Response>;
  /** What the host app's login and consent pages call. */
  interactions: Interactions;
  /** What the host's authenticator back end calls once the user answered a CIBA request. */
  ciba: Provider['ciba'];
  /** What the host app's device verification page calls. */
  device: DeviceVerification;
  close(): Promise<void>;
}

/**
/**
 * What the host app plugs into Gatehouse: its user store, its own login page and device
 * verification page, its outbound fetch or transport, its channel to users' authenticator apps.
 */
export type HostOptions = Pick<
  ProviderOptions,
  | 'accounts'
  | 'interactionUrl'
  | 'deviceVerificationUrl'
  | 'fetch'
  | 'outbound'
  | 'authenticatorPush'
>;

/**
 * Gatehouse mounted under a prefix in a host app of one framework, with its metadata also at the
 * host's root (RFC 8414 path insertion), over real HTTP on a loopback port. The provider's base URL is a public https URL rather than the loopback origin, because
 * the shared harnesses take a built provider and only then listen on a port. Every URL a relying party
 * sees therefore comes from configuration, none from the Host header it actually sent.
 */
export async function startGatehouse(
  harness: AdapterHarness,
  realms: readonly RealmInput[],
  host: HostOptions = {},
): Promise<RunningGatehouse> {
  const baseUrl = `${PUBLIC_ORIGIN}${PREFIX}`;
  const provider = createProvider({ baseUrl, realms, ...host });
  const app = await harness.start([{ prefix: PREFIX, provider, atHostRoot: true }]);
  return {
    issuer: (realmName) => `${baseUrl}/oauth/${realmName}`,
    fetch: loopbackFetch(app.origin),
    interactions: provider.interactions,
    ciba: provider.ciba,
    device: provider.device,
    async close() {
      await app.close();
      await provider.close();
    },
  };
}

function loopbackFetch(origin: string): RunningGatehouse['fetch'] {
  return async (url, init) => {
    if (!url.startsWith(`${PUBLIC_ORIGIN}/`)) {
      throw new Error(`unexpected request outside ${PUBLIC_ORIGIN}: ${url}`);
    }
    return fetch(`${origin}${url.slice(PUBLIC_ORIGIN.length)}`, init);
  };
}
