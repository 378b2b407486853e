import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';

/** How long a failed fetch of a client's jwks_uri is remembered before trying again. */
export const FAILED_FETCH_COOLDOWN_MS = 30_000;

/**
 * A client's remote key set (jose caches what it fetched). When the fetch fails, the failure is
 * answered again for a cooldown instead of fetching on every assertion, so forged assertions for
 * a client whose key server is down cannot make us hammer that server.
 */
export function remoteKeySet(uri: string, now: () => number = Date.now): JWTVerifyGetKey {
  const keySet = createRemoteJWKSet(new URL(uri));
  let failure: { error: unknown; until: number } | undefined;
  return async (header, token) => {
    if (failure && now() < failure.until) throw failure.error;
    try {
      const key = await keySet(header, token);
      failure = undefined;
      return key;
    } catch (error) {
      failure = { error, until: now() + FAILED_FETCH_COOLDOWN_MS };
      throw error;
    }
  };
}
