import type { JSONWebKeySet } from 'jose';

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
 * GETs a JWK Set (RFC 7517 §5) from a client's jwks_uri with bounded time and memory: the body is
 * read as a stream and the transfer cut once it exceeds `maxBytes` (whatever Content-Length
 * claims), and the timeout covers the body too, so a slow or endless document costs at most the
 * limits. Redirects are not followed: the registered URI is the one trusted.
 */
export async function fetchJwks(
  uri: string,
  limits: JwksFetchLimits,
  fetchImpl: typeof fetch = fetch,
): Promise<JSONWebKeySet> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  try {
    const response = await fetchImpl(uri, {
      headers: { accept: 'application/json, application/jwk-set+json' },
      redirect: 'manual',
      signal: controller.signal,
    });
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => {});
      throw new JwksFetchError(`answered HTTP ${response.status}`);
    }
    const text = await readCapped(response, limits.maxBytes);
    return keySetOf(text, limits.maxKeys);
  } catch (error) {
    if (error instanceof JwksFetchError) throw error;
    const reason = controller.signal.aborted
      ? `gave no complete answer within ${limits.timeoutMs} ms`
      : 'could not be fetched';
    throw new JwksFetchError(reason, { cause: error });
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  const tooLarge = () => new JwksFetchError(`answered with more than ${maxBytes} bytes`);
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
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
