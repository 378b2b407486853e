/**
 * The framework-neutral HTTP exchange every Gatehouse handler works on. Adapters build a
 * `GatehouseRequest` from their framework's request and write the `GatehouseResponse` back.
 */
export interface GatehouseRequest {
  /** Upper-case HTTP method. */
  method: string;
  /** Path relative to where Gatehouse is mounted, starting with `/` (e.g. `/oauth/demo/token`). */
  path: string;
  /** Raw query string without the leading `?` (empty when there is none). */
  query: string;
  /** Header names in lower case. Repeated headers joined with `, ` as Node does. */
  headers: Readonly<Record<string, string | undefined>>;
  /**
   * The raw body. Adapters should pass the bytes as received; `form` is for frameworks that
   * already consumed the body with a form parser and can rebuild every pair in order.
   */
  body?: Uint8Array | string;
  /** A body already parsed as `application/x-www-form-urlencoded`, pairs in wire order. */
  form?: ReadonlyArray<readonly [string, string]>;
}

export interface GatehouseResponse {
  status: number;
  headers: Record<string, string>;
  /** Serialised body, or undefined for an empty one. */
  body?: string;
  /** `Set-Cookie` values, one header each (they cannot be joined like other headers). */
  cookies?: readonly string[];
  /**
   * The OAuth error code of an error answer, as the provider's instrumentation records it (its
   * own spelling, whatever the realm's dialect on the wire). Never written to the wire: adapters
   * write the status, headers, cookies and body only. Carried as data, so a copy of the answer
   * (one CORS headers were added to, say) keeps it.
   */
  errorCode?: string;
}

/**
 * Headers as Node-style servers hold them (repeated ones as arrays) in the form a
 * `GatehouseRequest` takes: each repeated header joined with `, `.
 */
export function joinHeaderValues(
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
): Record<string, string | undefined> {
  const joined: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    joined[name] = typeof value === 'string' || value === undefined ? value : value.join(', ');
  }
  return joined;
}
