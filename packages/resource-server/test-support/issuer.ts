import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  type JWK,
  type JWTHeaderParameters,
  type JWTPayload,
  SignJWT,
} from 'jose';
import { tokenHash } from '../src/token-hash.js';

/*
 * An authorization server in a function, for the kit's tests: its metadata, its keys and the
 * tokens it would sign. Test support only: no package entry ships it.
 */

export const ISSUER = 'https://id.example.com/oauth/main';
export const RESOURCE = 'https://api.example.com';
export const JWKS_URI = `${ISSUER}/jwks`;
export const INTROSPECTION_ENDPOINT = `${ISSUER}/introspect`;
export const METADATA_URL = `${RESOURCE}/.well-known/oauth-protected-resource`;

export interface TestIssuer {
  /** The issuer's signing key, published at JWKS_URI under kid `key-1`. */
  privateKey: CryptoKey;
  /** Answers the issuer's metadata and JWKS; everything else per `routes`, or 404. */
  fetch: typeof fetch;
  /** URLs fetched, in order. */
  fetched: string[];
  /** Further answers by URL, for tests that serve more. */
  routes: Map<string, (request: Request) => Response | Promise<Response>>;
  /** A JWT access token with RFC 9068's claims for RESOURCE, overridden by `claims` and `header`. */
  token(
    claims?: JWTPayload,
    header?: Partial<JWTHeaderParameters>,
    key?: CryptoKey | Uint8Array,
  ): Promise<string>;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

export async function testIssuer(): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'key-1', alg: 'ES256' };
  const fetched: string[] = [];
  const routes = new Map<string, (request: Request) => Response | Promise<Response>>([
    [
      `${ISSUER}/.well-known/openid-configuration`,
      () =>
        Response.json({
          issuer: ISSUER,
          jwks_uri: JWKS_URI,
          introspection_endpoint: INTROSPECTION_ENDPOINT,
        }),
    ],
    [JWKS_URI, () => Response.json({ keys: [jwk] })],
  ]);
  return {
    privateKey,
    fetched,
    routes,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      fetched.push(request.url);
      return (await routes.get(request.url)?.(request)) ?? new Response('', { status: 404 });
    },
    token: (claims = {}, header = {}, key = privateKey) =>
      new SignJWT({
        iss: ISSUER,
        aud: RESOURCE,
        sub: 'alice',
        client_id: 'agent',
        scope: 'api:read',
        iat: nowSeconds(),
        exp: nowSeconds() + 300,
        jti: crypto.randomUUID(),
        ...claims,
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'key-1', ...header })
        .sign(key),
  };
}

/** A client's DPoP key: its thumbprint, and proofs (RFC 9449 §4.2) it signs. */
export interface DpopKey {
  jkt: string;
  proof(
    target: { htm: string; htu: string; accessToken: string },
    claims?: JWTPayload,
    header?: Partial<JWTHeaderParameters>,
  ): Promise<string>;
}

export async function dpopKey(): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk: JWK = await exportJWK(publicKey);
  return {
    jkt: await calculateJwkThumbprint(jwk),
    proof: async ({ htm, htu, accessToken }, claims = {}, header = {}) =>
      new SignJWT({
        htm,
        htu,
        ath: await tokenHash(accessToken),
        iat: nowSeconds(),
        jti: crypto.randomUUID(),
        ...claims,
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk, ...header })
        .sign(privateKey),
  };
}
