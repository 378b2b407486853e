import { UpstreamError } from './token-error.js';

/** What one call to the authorization server may cost. */
export interface FetchLimits {
  /** Milliseconds for the whole exchange, body included. */
  timeoutMs: number;
  /** Bytes of body read at most; the transfer is abandoned as soon as it goes past. */
  maxBytes: number;
}

/** The limits of the core's own remote key sets (docs/decisions.md), for every outbound call. */
export const DEFAULT_FETCH_LIMITS: Readonly<FetchLimits> = { timeoutMs: 5000, maxBytes: 64 * 1024 };

export interface BoundedAnswer {
  status: number;
  text: string;
}

/**
 * Calls the authorization server with bounded time and memory: the timeout covers the body, the
 * body is read as a stream and cut past `maxBytes` whatever Content-Length claims, and redirects
 * are refused (the configured URL is the one trusted). `what` names the call in errors.
 */
export async function fetchBounded(
  fetchImpl: typeof fetch,
  what: string,
  url: string,
  init: RequestInit,
  limits: FetchLimits,
): Promise<BoundedAnswer> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  const signal = init.signal
    ? AbortSignal.any([init.signal, controller.signal])
    : controller.signal;
  try {
    const response = await fetchImpl(url, { ...init, redirect: 'manual', signal });
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => {});
      throw new UpstreamError(
        `${what} answered a redirect (HTTP ${response.status}), not followed`,
      );
    }
    return { status: response.status, text: await readCapped(response, what, limits.maxBytes) };
  } catch (error) {
    if (error instanceof UpstreamError) throw error;
    const reason = signal.aborted
      ? `gave no complete answer within ${limits.timeoutMs} ms`
      : 'could not be reached';
    throw new UpstreamError(`${what} ${reason}`, { cause: error });
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

async function readCapped(response: Response, what: string, maxBytes: number): Promise<string> {
  const tooLarge = () => new UpstreamError(`${what} answered with more than ${maxBytes} bytes`);
  if (Number(response.headers.get('content-length') ?? Number.NaN) > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const reader = response.body?.getReader();
  if (!reader) return '';
  const decoder = new TextDecoder();
  let text = '';
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    text += decoder.decode(value, { stream: true });
  }
}

/** The JSON object of an answer, or an UpstreamError naming the call. */
export function jsonObjectOf(answer: BoundedAnswer, what: string): Record<string, unknown> {
  let document: unknown;
  try {
    document = JSON.parse(answer.text);
  } catch {
    throw new UpstreamError(`${what} did not answer with JSON (HTTP ${answer.status})`);
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new UpstreamError(`${what} did not answer with a JSON object (HTTP ${answer.status})`);
  }
  return document as Record<string, unknown>;
}
