import { createHash } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** What a proof is for, and what else it says. */
export interface ProofFor {
  htm?: string;
  htu: string;
  /** At a resource: the token whose hash becomes `ath`. */
  accessToken?: string;
  nonce?: string;
  /** Seconds since the epoch; now by default. */
  iat?: number;
  jti?: string;
}

/** A client's DPoP key, signing proofs as RFC 9449 §4.2 says, independently of core. */
export interface DpopKey {
  readonly jwk: JWK;
  /** Its RFC 7638 SHA-256 thumbprint. */
  readonly jkt: string;
  proof(target: ProofFor): Promise<string>;
}

export async function dpopKey(now: () => number = Date.now): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwk = await exportJWK(publicKey);
  return {
    jwk,
    jkt: await calculateJwkThumbprint(jwk),
    proof: ({ htm = 'POST', htu, accessToken, nonce, iat, jti }) =>
      new SignJWT({
        jti: jti ?? crypto.randomUUID(),
        htm,
        htu,
        iat: iat ?? Math.floor(now() / 1000),
        ...(accessToken === undefined
          ? {}
          : { ath: createHash('sha256').update(accessToken).digest('base64url') }),
        ...(nonce === undefined ? {} : { nonce }),
      })
        .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
        .sign(privateKey),
  };
}
