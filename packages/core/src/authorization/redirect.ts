import { appendQuery, redirect } from '../http/redirect.js';
import type { GatehouseResponse } from '../http/types.js';
import { formPostPage } from './form-post.js';
import type { AuthorizationRequest, ResponseMode } from './request.js';

/**
 * Where and how an authorization response (success, or an error of docs/interface.md §7.2) is
 * delivered.
 */
export interface ResponseTarget {
  redirectUri: string;
  responseMode: ResponseMode;
  state?: string;
}

export function targetOf(request: AuthorizationRequest): ResponseTarget {
  return {
    redirectUri: request.redirectUri,
    responseMode: request.responseMode,
    ...(request.state === undefined ? {} : { state: request.state }),
  };
}

/**
 * The answer to the client, always with `state` when sent and `iss` (RFC 9207, against mix-up
 * attacks): a redirect with the parameters in the query (appended to any the registered URI
 * already has) or in the fragment — 303 after a POST so the browser never re-sends the form to
 * the client — or, for `form_post`, a page whose form the browser POSTs to the redirect URI.
 */
export function respondToClient(
  target: ResponseTarget,
  params: Record<string, string>,
  issuer: string,
  method: string,
  cookies?: readonly string[],
): GatehouseResponse {
  const all: Record<string, string> = { ...params };
  if (target.state !== undefined) all.state = target.state;
  all.iss = issuer;
  if (target.responseMode === 'form_post') return formPostPage(target.redirectUri, all, cookies);
  const encoded = new URLSearchParams(all).toString();
  const location =
    target.responseMode === 'fragment'
      ? `${target.redirectUri}#${encoded}`
      : appendQuery(target.redirectUri, encoded);
  return redirect(location, method, cookies);
}
