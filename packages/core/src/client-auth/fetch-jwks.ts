import type { JSONWebKeySet } from 'jose';
import {
  OutboundError,
  type OutboundFetcher,
  type OutboundRequest,
  type OutboundResponse,
} from '../outbound/outbound.js';

/** What one fetch of a client's jwks_uri may cost. */
export interface JwksFetchLimits {
  /** Milliseconds for the whole exchange, body included. */
  timeoutMs: number;
  /** Bytes of body read at most; the transfer is abandoned as soon as it goes past. */
  maxBytes: number;
  /** Keys a document may hold. */
  maxKeys: number;
}

/** A jwks_uri could not be fetched or did not hold a usable key set; the message says why, after "jwks_uri". */
export class JwksFetchError extends Error {
  override name = 'JwksFetchError';
}

/**
 * GETs a JWK Set (RFC 7517 §5) from a client's jwks_uri through the provider's bounded fetcher:
 * a slow, endless or redirecting answer costs at most its limits and fails.
 */
export async function fetchJwks(
  uri: string,
  limits: JwksFetchLimits,
  fetcher: OutboundFetcher,
  reach: Pick<OutboundRequest, 'author' | 'allowPrivateNetworks'> = { author: 'operator' },
): Promise<JSONWebKeySet> {
  let answer: OutboundResponse;
  try {
    answer = await fetcher.send({
      url: uri,
      ...reach,
      headers: { accept: 'application/json, application/jwk-set+json' },
      timeoutMs: limits.timeoutMs,
      maxBytes: limits.maxBytes,
    });
  } catch (error) {
    const reason = error instanceof OutboundError ? error.message : 'could not be fetched';
    throw new JwksFetchError(reason, { cause: error });
  }
  if (answer.status !== 200) throw new JwksFetchError(`answered HTTP ${answer.status}`);
  return keySetOf(answer.body, limits.maxKeys);
}

function keySetOf(text: string, maxKeys: number): JSONWebKeySet {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new JwksFetchError('did not answer with JSON');
  }
  const keys = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys) || !keys.every((key) => typeof key === 'object' && key !== null)) {
    throw new JwksFetchError('did not answer with a JWK Set');
  }
  if (keys.length > maxKeys) {
    throw new JwksFetchError(`answered with ${keys.length} keys, more than ${maxKeys}`);
  }
  return { keys };
}
