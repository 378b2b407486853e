/**
 * What adapters read off a provider, kept on it under a symbol rather than in its type: only
 * they read it, through `@gatehouse-oidc/core/adapter`. Being an own enumerable property, it
 * survives a host's wrapper made by spreading the provider (`{ ...provider, handle }`).
 */
export interface AdapterFacts {
  /** The provider's `maxBodyBytes`. */
  readonly maxBodyBytes: number;
  /** The path of its `baseUrl` as clients send it (percent-encoded), `''` at the host's root. */
  readonly basePath: string;
}

const ADAPTER_FACTS = Symbol('gatehouse.adapterFacts');

export function rememberAdapterFacts(provider: object, facts: AdapterFacts): void {
  Object.defineProperty(provider, ADAPTER_FACTS, { value: Object.freeze(facts), enumerable: true });
}

/** The facts `createProvider` recorded on this provider (or the one it was copied from). */
export function recordedAdapterFacts(provider: object): AdapterFacts {
  const facts: unknown = (provider as { [ADAPTER_FACTS]?: unknown })[ADAPTER_FACTS];
  if (typeof facts !== 'object' || facts === null) {
    throw new TypeError('not a provider made by createProvider, nor a copy of one');
  }
  return facts as AdapterFacts;
}
