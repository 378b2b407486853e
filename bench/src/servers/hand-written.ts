import { createHash, generateKeyPairSync, randomFillSync, timingSafeEqual } from 'node:crypto';
import type { SigningKey } from '@gatehouse-oidc/core';
import { nodeCryptoSigner } from '@gatehouse-oidc/node-crypto';
import {
  BENCH_CLIENT_ID,
  BENCH_CLIENT_SECRET,
  BENCH_CODE_CHALLENGE,
  BENCH_NONCE,
  BENCH_REDIRECT_URI,
  BENCH_RESOURCE,
  BENCH_SCOPE,
  BENCH_USER,
  BENCH_USER_SCOPE,
  BENCH_WEB_CLIENT_ID,
  BENCH_WEB_CLIENT_SECRET,
} from '../token-request.js';
import { formApp } from './form-app.js';
import type { RunningServer } from './running-server.js';

const ACCESS_TOKEN_SECONDS = 600;
const ID_TOKEN_SECONDS = 3600;
const CODE_SECONDS = 600;
const REFRESH_TOKEN_SECONDS = 30 * 86_400;

/**
 * The least a server can do for the bench's token flows and still do them right, written for
 * this bench alone: one issuer, two clients and one resource in constants, maps for stores, no
 * realms, events, policies or configuration. It authenticates the client (client_secret_post,
 * compared in constant time); spends a code or a refresh token once, and a second use revokes the
 * grant it gave (the code's tokens, the rotated token's successors); checks the code's client,
 * redirect URI, PKCE S256 verifier and expiry; and answers ES256 JWTs: an access token for the
 * resource and, for the user grants, an ID token (with the code's nonce) and a new refresh token.
 * Signatures go to `nodeCryptoSigner`'s thread, as ours do: signing on the event loop measured
 * no cheaper under the bench's load, and slower (docs/performance.md).
 *
 * Not a peer: it says how far the floor (the bare route and the signatures) is from a server that
 * does the flow's work and nothing else, so that a target set against a peer can be judged against
 * what an implementation of the flow spends.
 */
export async function startHandWritten(): Promise<RunningServer> {
  const app = formApp();
  /** The address it listens on, known once it does: the tokens' `iss`. */
  let issuer = '';
  const signer = es256Signer();
  const codes = new Map<string, Code>();
  const refreshTokens = new Map<string, RefreshToken>();
  const revokedGrants = new Set<string>();

  const tokens = async (clientId: string, user?: UserGrant) => {
    const now = seconds();
    const accessToken = signer.jwt('at+jwt', {
      iss: issuer,
      sub: user?.sub ?? clientId,
      aud: BENCH_RESOURCE,
      client_id: clientId,
      scope: BENCH_SCOPE,
      iat: now,
      exp: now + ACCESS_TOKEN_SECONDS,
      jti: randomId(),
    });
    const answer = { token_type: 'Bearer', expires_in: ACCESS_TOKEN_SECONDS };
    if (!user) return { ...answer, access_token: await accessToken, scope: BENCH_SCOPE };
    const idToken = signer.jwt('JWT', {
      iss: issuer,
      sub: user.sub,
      aud: clientId,
      iat: now,
      exp: now + ID_TOKEN_SECONDS,
      ...(user.nonce === undefined ? {} : { nonce: user.nonce }),
    });
    const refreshToken = randomId();
    refreshTokens.set(refreshToken, {
      grantId: user.grantId,
      clientId,
      expiresAt: user.refreshTokenExpiresAt,
      used: false,
    });
    return {
      ...answer,
      access_token: await accessToken,
      scope: BENCH_USER_SCOPE,
      refresh_token: refreshToken,
      id_token: await idToken,
    };
  };

  /**
   * The code's grant, or why not. Only its own client with its redirect URI and verifier gets
   * that far, as in ours: a second use by it revokes what the first gave, expired or not.
   */
  const spendCode = (form: Form, clientId: string): UserGrant | undefined => {
    const code = typeof form.code === 'string' ? codes.get(form.code) : undefined;
    const verifier = form.code_verifier;
    if (
      code === undefined ||
      code.clientId !== clientId ||
      form.redirect_uri !== BENCH_REDIRECT_URI ||
      typeof verifier !== 'string' ||
      createHash('sha256').update(verifier).digest('base64url') !== code.codeChallenge
    )
      return undefined;
    if (code.spentFor !== undefined) {
      revokedGrants.add(code.spentFor);
      return undefined;
    }
    if (code.expiresAt <= seconds()) return undefined;
    code.spentFor = randomId();
    return {
      sub: BENCH_USER,
      grantId: code.spentFor,
      nonce: code.nonce,
      refreshTokenExpiresAt: seconds() + REFRESH_TOKEN_SECONDS,
    };
  };

  /** The refresh token's grant, or why not; a rotated token used again revokes its grant. */
  const spendRefreshToken = (form: Form, clientId: string): UserGrant | undefined => {
    const presented = form.refresh_token;
    const token = typeof presented === 'string' ? refreshTokens.get(presented) : undefined;
    if (
      token === undefined ||
      token.clientId !== clientId ||
      token.expiresAt <= seconds() ||
      revokedGrants.has(token.grantId)
    )
      return undefined;
    if (token.used) {
      revokedGrants.add(token.grantId);
      return undefined;
    }
    token.used = true;
    // The successor keeps the first token's expiry: rotation does not lengthen the grant.
    return { sub: BENCH_USER, grantId: token.grantId, refreshTokenExpiresAt: token.expiresAt };
  };

  app.post('/token', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const form = (request.body ?? {}) as Form;
    const client = typeof form.client_id === 'string' ? CLIENTS.get(form.client_id) : undefined;
    const secret = form.client_secret;
    if (!client || typeof secret !== 'string' || !secretMatches(client.secretHash, secret))
      return reply.code(401).send({ error: 'invalid_client' });
    const grantType = form.grant_type;
    if (typeof grantType !== 'string' || !GRANT_TYPES.has(grantType))
      return reply.code(400).send({ error: 'unsupported_grant_type' });
    if (!client.grantTypes.has(grantType))
      return reply.code(400).send({ error: 'unauthorized_client' });
    if (grantType === 'client_credentials') {
      if (form.resource !== undefined && form.resource !== BENCH_RESOURCE)
        return reply.code(400).send({ error: 'invalid_target' });
      if (form.scope !== undefined && form.scope !== BENCH_SCOPE)
        return reply.code(400).send({ error: 'invalid_scope' });
      return tokens(client.id);
    }
    const user =
      grantType === 'authorization_code'
        ? spendCode(form, client.id)
        : spendRefreshToken(form, client.id);
    if (!user) return reply.code(400).send({ error: 'invalid_grant' });
    return tokens(client.id, user);
  });
  app.get('/jwks', async () => ({ keys: [signer.publicJwk] }));
  issuer = await app.listen({ host: '127.0.0.1', port: 0 });

  return {
    baseUrl: issuer,
    tokenPath: '/token',
    jwksPath: '/jwks',
    async mint(kind, count) {
      if (kind === 'id_token_hint')
        throw new Error('the hand-written server takes no CIBA request');
      const minted = Array.from({ length: count }, randomId);
      for (const value of minted) {
        if (kind === 'authorization_code') {
          codes.set(value, {
            clientId: BENCH_WEB_CLIENT_ID,
            codeChallenge: BENCH_CODE_CHALLENGE,
            nonce: BENCH_NONCE,
            expiresAt: seconds() + CODE_SECONDS,
          });
        } else {
          refreshTokens.set(value, {
            grantId: randomId(),
            clientId: BENCH_WEB_CLIENT_ID,
            expiresAt: seconds() + REFRESH_TOKEN_SECONDS,
            used: false,
          });
        }
      }
      return minted;
    },
    close: () => app.close(),
  };
}

type Form = Record<string, string | string[] | undefined>;

/** What a code was issued for, and the grant its first use made. */
interface Code {
  readonly clientId: string;
  readonly codeChallenge: string;
  readonly nonce: string;
  readonly expiresAt: number;
  spentFor?: string;
}

interface RefreshToken {
  readonly grantId: string;
  readonly clientId: string;
  readonly expiresAt: number;
  used: boolean;
}

/** The user's grant a code or a refresh token was spent for. */
interface UserGrant {
  readonly sub: string;
  readonly grantId: string;
  readonly nonce?: string;
  /** Seconds since the epoch: the grant's refresh tokens end then, however often rotated. */
  readonly refreshTokenExpiresAt: number;
}

const GRANT_TYPES = new Set(['client_credentials', 'authorization_code', 'refresh_token']);

interface Client {
  readonly id: string;
  readonly secretHash: Buffer;
  readonly grantTypes: ReadonlySet<string>;
}

const seconds = () => Math.floor(Date.now() / 1000);

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** Hashes of equal length, compared in constant time. */
const secretMatches = (expected: Buffer, presented: string) =>
  timingSafeEqual(expected, sha256(presented));

const CLIENTS = new Map<string, Client>([
  [
    BENCH_CLIENT_ID,
    {
      id: BENCH_CLIENT_ID,
      secretHash: sha256(BENCH_CLIENT_SECRET),
      grantTypes: new Set(['client_credentials']),
    },
  ],
  [
    BENCH_WEB_CLIENT_ID,
    {
      id: BENCH_WEB_CLIENT_ID,
      secretHash: sha256(BENCH_WEB_CLIENT_SECRET),
      grantTypes: new Set(['authorization_code', 'refresh_token']),
    },
  ],
]);

const RANDOM_POOL_BYTES = 4096;
let randomPool = Buffer.alloc(0);

/**
 * 128 random bits, base64url, cut from a pool filled 4 KiB at a time as ours does
 * (core/src/crypto/random.ts): a synchronous `randomBytes(16)` per identifier took a quarter of
 * this server's event loop under the bench's load.
 */
function randomId(): string {
  if (randomPool.length < 16) randomPool = randomFillSync(Buffer.alloc(RANDOM_POOL_BYTES));
  const id = randomPool.subarray(0, 16).toString('base64url');
  randomPool = randomPool.subarray(16);
  return id;
}

/** One ES256 key, its public JWK, and compact JWTs signed with it by `nodeCryptoSigner`. */
function es256Signer(): {
  publicJwk: object;
  jwt(typ: string, claims: object): Promise<string>;
} {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const kid = 'hand-written';
  const publicJwk = { ...publicKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig', kid };
  const key: SigningKey = {
    kid,
    alg: 'ES256',
    privateJwk: privateKey.export({ format: 'jwk' }),
    publicJwk,
    createdAt: seconds(),
  };
  const headers = new Map(
    ['at+jwt', 'JWT'].map((typ) => [typ, base64url(JSON.stringify({ alg: 'ES256', typ, kid }))]),
  );
  const signer = nodeCryptoSigner();
  return {
    publicJwk,
    async jwt(typ, claims) {
      const input = `${headers.get(typ)}.${base64url(JSON.stringify(claims))}`;
      const signature = await signer.sign(key, utf8.encode(input));
      const view = Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength);
      return `${input}.${view.toString('base64url')}`;
    },
  };
}

const utf8 = new TextEncoder();

const base64url = (text: string) => Buffer.from(text).toString('base64url');
