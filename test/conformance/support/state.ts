import { decodeJwt, decodeProtectedHeader, type JWK } from 'jose';
import type { Callback } from './browser.js';
import type { SuiteClient } from './op.js';

/**
 * What a module knows as it goes, like the suite's environment: the server's metadata and keys,
 * the request it sent, and everything that came back. Conditions read it; flows fill it in.
 */

export type ResponseType =
  | 'code'
  | 'id_token'
  | 'id_token token'
  | 'code id_token'
  | 'code token'
  | 'code id_token token';

export type ResponseMode = 'default' | 'form_post';

/** The variant a module runs with (ServerMetadata is always discovery here). */
export interface Variant {
  responseType: ResponseType;
  responseMode: ResponseMode;
  clientAuth: 'client_secret_basic' | 'client_secret_post';
}

export interface Jwt {
  value: string;
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
}

export function parseJwt(value: string): Jwt {
  return { value, header: decodeProtectedHeader(value), claims: decodeJwt(value) };
}

/** An HTTP answer as the suite keeps it: status, headers and the body (and its JSON if any). */
export interface HttpAnswer {
  status: number;
  headers: Headers;
  body: string;
  json: Record<string, unknown> | undefined;
}

export async function readAnswer(response: Response): Promise<HttpAnswer> {
  const body = await response.text();
  let json: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      json = parsed as Record<string, unknown>;
    }
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, body, json };
}

export interface FlowState {
  /** Milliseconds since the epoch on the shared clock. */
  now: number;
  /** The discovery document. */
  server: Record<string, unknown>;
  serverJwks: { keys: JWK[] };
  /** The client the flow runs as (the checks need only its client_id). */
  client: { readonly id: string };
  redirectUri: string;
  /** authorization_endpoint_request: every parameter sent, `claims` as an object. */
  request: Record<string, unknown>;
  state?: string;
  nonce?: string;
  callback?: Callback;
  /** authorization_endpoint_response: the parameters where the response mode puts them. */
  response: Record<string, string>;
  accessToken?: string;
  /** The ID token the checks look at now (the last one extracted). */
  idToken?: Jwt;
  authorizationIdToken?: Jwt;
  tokenIdToken?: Jwt;
  /** The first authorization's ID token, in modules that authorize twice. */
  firstIdToken?: Jwt;
  token?: HttpAnswer;
  userinfo?: HttpAnswer;
  userinfoClaims?: Record<string, unknown>;
}

/** A flow of the OpenID Connect plans: one of the suite's static clients, in a variant. */
export interface OidcFlowState extends FlowState {
  client: SuiteClient;
  variant: Variant;
}

export const includesCode = (type: ResponseType) => type.split(' ').includes('code');
export const includesToken = (type: ResponseType) => type.split(' ').includes('token');
export const includesIdToken = (type: ResponseType) => type.split(' ').includes('id_token');

/** The variant's name as the suite's plan lists it. */
export const variantName = (variant: Variant | undefined) =>
  variant
    ? `[${variant.responseType}] [${variant.clientAuth}] [${variant.responseMode}]`
    : '[discovery]';
