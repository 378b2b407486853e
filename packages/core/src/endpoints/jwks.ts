import type { EndpointHandler } from '../context.js';
import { jsonResponse } from '../http/responses.js';

/** The realm's public signing keys (RFC 7517), including retired keys whose tokens may be live. */
export const jwksEndpoint: EndpointHandler = async (_request, context) => {
  const keys = await context.keys.publicKeys(context.realm);
  return jsonResponse(
    200,
    { keys },
    {
      'content-type': 'application/jwk-set+json; charset=utf-8',
      'cache-control': 'public, max-age=60',
      'access-control-allow-origin': '*',
    },
  );
};
