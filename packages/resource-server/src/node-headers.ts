import type { RequestHeaders } from './presented-token.js';

/**
 * Node.js's parsed headers (`IncomingMessage.headers`, as Express and Fastify hand them over) as
 * the kit reads headers: a repeated header's values joined by `, `, as a Web `Headers` does.
 */
export function nodeHeaders(
  headers: Record<string, string | string[] | undefined>,
): RequestHeaders {
  return {
    get(name) {
      const value = headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
}
