/**
 * Each provider's body limit, kept on the provider under a symbol rather than in its type: only
 * adapters read it, through `@gatehouse-oidc/core/adapter`. Being an own enumerable property, it
 * survives a host's wrapper made by spreading the provider (`{ ...provider, handle }`).
 */
const BODY_LIMIT = Symbol('gatehouse.bodyLimit');

export function rememberBodyLimit(provider: object, maxBodyBytes: number): void {
  Object.defineProperty(provider, BODY_LIMIT, { value: maxBodyBytes, enumerable: true });
}

/** The limit `createProvider` recorded on this provider (or the one it was copied from). */
export function recordedBodyLimit(provider: object): number {
  const limit: unknown = (provider as { [BODY_LIMIT]?: unknown })[BODY_LIMIT];
  if (typeof limit !== 'number') {
    throw new TypeError('not a provider made by createProvider, nor a copy of one');
  }
  return limit;
}
