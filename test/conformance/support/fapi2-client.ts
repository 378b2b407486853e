import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  SignJWT,
} from 'jose';
import type { FapiClient } from './fapi2-op.js';

/**
 * What the suite's client does with keys in the FAPI 2.0 plan: its private_key_jwt assertions
 * (CreateClientAuthenticationAssertionClaims, SignClientAuthenticationAssertion), its DPoP
 * proofs (GenerateDpopKey, CreateDpopHeader, CreateDpopClaims, SignDpopProof) and PKCE
 * (CreateRandomCodeVerifier, CreateS256CodeChallenge). A module changes a JWT's header or claims
 * before it is signed, as the suite's conditions inserted before the signing step do.
 */

/** A JWT before it is signed. */
export interface JwtParts {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
}

export type Customize = (parts: JwtParts) => void | Promise<void>;

/** Signs `parts` with `key`; `alg` of the header decides the algorithm. */
async function sign(parts: JwtParts, key: CryptoKey): Promise<string> {
  const { alg, ...header } = parts.header;
  return new SignJWT(parts.claims).setProtectedHeader({ ...header, alg: String(alg) }).sign(key);
}

const seconds = (ms: number) => Math.floor(ms / 1000);

/** An assertion of the client for `audience`, signed with its key (RFC 7523 §3). */
export async function clientAssertion(
  client: FapiClient,
  audience: string,
  nowMs: number,
  customize?: Customize,
): Promise<string> {
  const iat = seconds(nowMs);
  const parts: JwtParts = {
    header: { alg: client.alg, kid: client.publicJwk.kid },
    claims: {
      iss: client.id,
      sub: client.id,
      aud: audience,
      jti: randomUUID(),
      iat,
      exp: iat + 60,
    },
  };
  await customize?.(parts);
  const key = parts.header.alg === client.alg ? client.privateKey : await reimport(client, parts);
  return sign(parts, key);
}

/** The client's key for another algorithm of its family (ChangeClientJwksAlgToRS256). */
async function reimport(client: FapiClient, parts: JwtParts): Promise<CryptoKey> {
  const jwk = await exportJWK(client.privateKey);
  return (await importJWK(
    { ...jwk, alg: String(parts.header.alg) },
    String(parts.header.alg),
  )) as CryptoKey;
}

/** A DPoP key of the client (GenerateDpopKey), with its RFC 7638 thumbprint. */
export interface DpopKey {
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  privateJwk: JWK;
  jkt: string;
}

export async function generateDpopKey(alg = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return {
    alg,
    privateKey,
    publicJwk,
    privateJwk: await exportJWK(privateKey),
    jkt: await calculateJwkThumbprint(publicJwk),
  };
}

/** What a proof is for: the request's method and URL, and at a resource the access token. */
export interface ProofTarget {
  htm: string;
  htu: string;
  accessToken?: string;
}

/** A DPoP proof (RFC 9449 §4.2) for `target`, issued now. */
export async function dpopProof(
  key: DpopKey,
  target: ProofTarget,
  nowMs: number,
  customize?: Customize,
): Promise<string> {
  const parts: JwtParts = {
    header: { typ: 'dpop+jwt', alg: key.alg, jwk: key.publicJwk },
    claims: {
      jti: randomUUID(),
      htm: target.htm,
      htu: target.htu,
      iat: seconds(nowMs),
      ...(target.accessToken === undefined ? {} : { ath: sha256(target.accessToken) }),
    },
  };
  await customize?.(parts);
  return sign(parts, key.privateKey);
}

export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

/** CreateRandomCodeVerifier and its S256 challenge (RFC 7636 §4.1, §4.2). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: sha256(verifier) };
}
