import { decodeUtf8, type Params } from '../http/form.js';

/** More than any real request object's payload; beyond it, nothing is decoded. */
const MAX_PAYLOAD_CHARS = 8192;

/**
 * The response_mode written inside a request object Gatehouse does not process (OpenID Connect
 * Core §6.1 lets a client put every parameter there). It is read for one thing only: to send
 * `request_not_supported` the way the client asked — a client that asked for form_post waits for
 * a POST. The object is neither verified nor used otherwise, and the mode still has to be one the
 * client is registered for; at worst a forger picks how an error reaches a registered URI.
 */
export function responseModeInRequestObject(params: Params): string | undefined {
  if (params.repeated.has('request')) return undefined;
  const payload = params.get('request')?.split('.')[1];
  if (!payload || payload.length > MAX_PAYLOAD_CHARS || !/^[\w-]+$/.test(payload)) return undefined;
  try {
    const base64 = payload.replaceAll('-', '+').replaceAll('_', '/');
    const claims: unknown = JSON.parse(
      decodeUtf8(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))),
    );
    const mode = (claims as { response_mode?: unknown } | null)?.response_mode;
    return typeof mode === 'string' ? mode : undefined;
  } catch {
    return undefined;
  }
}
