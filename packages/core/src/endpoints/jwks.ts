import type { EndpointHandler } from '../context.js';
import { withRealmCors } from '../http/cors.js';
import { jsonResponse } from '../http/responses.js';

/** The realm's public signing keys (RFC 7517), including retired keys whose tokens may be live. */
export const jwksEndpoint: EndpointHandler = async (request, context) => {
  // Fresh: a key another instance made must be published before anyone receives its tokens.
  const keys = await context.keys.publicKeys(context.realm, { fresh: true });
  const response = jsonResponse(
    200,
    { keys },
    {
      'content-type': 'application/jwk-set+json; charset=utf-8',
      'cache-control': 'public, max-age=60',
      vary: 'Origin',
    },
  );
  return withRealmCors(response, request, context.realm);
};
