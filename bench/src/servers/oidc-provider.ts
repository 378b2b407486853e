/// <reference path="./oidc-provider.d.ts" />
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { errors } from 'oidc-provider';
import MemoryAdapter, { type AdapterStorage } from 'oidc-provider/lib/adapters/memory_adapter.js';
import { BENCH_CIBA_EXPIRES_IN, CIBA_GRANT_TYPE } from '../ciba-request.js';
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
  type CredentialKind,
  TOKEN_REQUEST_HEADERS,
  tokenRequestBody,
} from '../token-request.js';
import { listenOnLoopback } from './listen.js';
import { mintMany } from './mint.js';
import type { RunningServer } from './running-server.js';

const DAY = 86_400;
/** The `sid` the codes and refresh tokens carry, as if minted in one browser session. */
const SESSION_ID = 'bench-session';

/**
 * node-oidc-provider v9 doing the same jobs as ours, configured to the same effect:
 * client_credentials with client_secret_post for an ES256 JWT access token for the requested
 * resource (RFC 8707 resource indicators); and for the web client the code exchange with PKCE
 * S256 and the refresh_token grant with rotation, each answering an ES256 JWT access token for the
 * granted resource, an ES256 ID token and a (new) refresh token. Lifetimes are ours' defaults.
 * CIBA in poll mode as ours does it: the user named by an `id_token_hint` only (login hints and
 * user codes refused), an authenticator push that does nothing but count, ours' expiry, and the
 * endpoint at `{issuer}/bc-authorize`. DPoP (no nonces) and pushed authorization requests at its
 * default `{issuer}/request`, as ours. Its own in-memory adapter, over a storage that keeps every
 * record (see UnboundedStorage).
 */
export async function startOidcProvider(): Promise<RunningServer> {
  const server = createServer();
  await listenOnLoopback(server);
  const { port } = server.address() as AddressInfo;
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const storage = new UnboundedStorage();
  let pushes = 0;
  const provider = new Provider(issuer, {
    adapter: (model: string) => new MemoryAdapter(model, storage),
    jwks: {
      keys: [
        { ...privateKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig', kid: 'bench-es256' },
      ],
    },
    clients: [
      {
        client_id: BENCH_CLIENT_ID,
        client_secret: BENCH_CLIENT_SECRET,
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
        scope: BENCH_SCOPE,
        id_token_signed_response_alg: 'ES256',
      },
      {
        client_id: BENCH_WEB_CLIENT_ID,
        client_secret: BENCH_WEB_CLIENT_SECRET,
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code', 'refresh_token', CIBA_GRANT_TYPE],
        response_types: ['code'],
        redirect_uris: [BENCH_REDIRECT_URI],
        scope: BENCH_USER_SCOPE,
        id_token_signed_response_alg: 'ES256',
        backchannel_token_delivery_mode: 'poll',
      },
    ],
    scopes: ['openid', BENCH_SCOPE],
    ttl: {
      ClientCredentials: 600,
      AccessToken: 600,
      AuthorizationCode: 600,
      IdToken: 3600,
      RefreshToken: 30 * DAY,
      Grant: 30 * DAY,
      // Ours: `expires_in` unless the client asks for less or more, capped at `max_expires_in` (600).
      BackchannelAuthenticationRequest: (ctx: { oidc?: { params?: Record<string, unknown> } }) => {
        const requested = ctx.oidc?.params?.requested_expiry;
        return requested === undefined ? BENCH_CIBA_EXPIRES_IN : Math.min(600, Number(requested));
      },
    },
    routes: { backchannel_authentication: '/bc-authorize' },
    pkce: { required: () => true },
    // Ours issues a refresh token to every client allowed the grant, and rotates it on every use.
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      // As ours: proofs checked and their jti recorded, no server nonces; PAR open to every client.
      dPoP: { enabled: true },
      pushedAuthorizationRequests: { enabled: true },
      ciba: {
        enabled: true,
        deliveryModes: ['poll'],
        processLoginHint: async () => {
          throw new errors.InvalidRequest(NO_HINT_BUT_ID_TOKEN('login_hint'));
        },
        processLoginHintToken: async () => {
          throw new errors.InvalidRequest(NO_HINT_BUT_ID_TOKEN('login_hint_token'));
        },
        verifyUserCode: async (_ctx: unknown, _account: unknown, userCode: unknown) => {
          if (userCode !== undefined)
            throw new errors.InvalidRequest(NO_HINT_BUT_ID_TOKEN('user_code'));
        },
        validateRequestContext: async () => {},
        triggerAuthenticationDevice: async () => {
          pushes++;
        },
      },
      resourceIndicators: {
        enabled: true,
        // Like ours: a token request without `resource` gets a token for the granted one.
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => {
          if (resource !== BENCH_RESOURCE) throw new Error(`unexpected resource ${resource}`);
          return { scope: BENCH_SCOPE, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } };
        },
      },
    },
  });
  server.on('request', provider.callback());
  return {
    baseUrl: issuer,
    tokenPath: '/token',
    jwksPath: '/jwks',
    backchannelPath: '/bc-authorize',
    parPath: '/request',
    mint: (kind, count) => mintMany(count, minter(provider, issuer, kind)),
    counters: () => ({ pushes }),
    close: () =>
      new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      ),
  };
}

const NO_HINT_BUT_ID_TOKEN = (parameter: string) =>
  `${parameter} is not supported: the user is identified by id_token_hint`;

function minter(provider: Provider, issuer: string, kind: CredentialKind): () => Promise<string> {
  if (kind === 'authorization_code') return () => mintCode(provider);
  if (kind === 'refresh_token') return () => mintRefresh(provider);
  return () => mintIdToken(provider, issuer);
}

/** An ID token of the bench user for the web client, from a real code exchange at its token endpoint. */
async function mintIdToken(provider: Provider, issuer: string): Promise<string> {
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: TOKEN_REQUEST_HEADERS,
    body: tokenRequestBody('authorization_code', await mintCode(provider)),
  });
  const text = await response.text();
  const idToken = response.status === 200 ? JSON.parse(text).id_token : undefined;
  if (typeof idToken !== 'string') throw new Error(`the code exchange gave no id_token: ${text}`);
  return idToken;
}

/**
 * What oidc-provider's authorization endpoint stores when the bench user, signed in, authorizes
 * the web client for `openid` and the API scope on the API resource: a grant, and the code bound
 * to it with the redirect URI, PKCE S256 challenge and nonce. One grant per code, as in ours.
 */
async function mintCode(provider: Provider): Promise<string> {
  const { client, grantId, granted } = await userGrant(provider);
  return new provider.AuthorizationCode({
    client,
    grantId,
    ...granted,
    redirectUri: BENCH_REDIRECT_URI,
    codeChallenge: BENCH_CODE_CHALLENGE,
    codeChallengeMethod: 'S256',
  }).save();
}

/** The refresh token oidc-provider's code exchange of such a code stores (grant_common.js). */
async function mintRefresh(provider: Provider): Promise<string> {
  const { client, grantId, granted } = await userGrant(provider);
  return new provider.RefreshToken({
    client,
    grantId,
    ...granted,
    gty: 'authorization_code',
    rotations: 0,
  }).save();
}

async function userGrant(provider: Provider) {
  const client = await provider.Client.find(BENCH_WEB_CLIENT_ID);
  if (!client) throw new Error(`no client ${BENCH_WEB_CLIENT_ID}`);
  const grant = new provider.Grant({ accountId: BENCH_USER, clientId: client.clientId });
  grant.addOIDCScope('openid');
  grant.addResourceScope(BENCH_RESOURCE, BENCH_SCOPE);
  const granted = {
    accountId: BENCH_USER,
    scope: BENCH_USER_SCOPE,
    resource: BENCH_RESOURCE,
    nonce: BENCH_NONCE,
    authTime: Math.floor(Date.now() / 1000),
    sid: SESSION_ID,
  };
  return { client, grantId: await grant.save(), granted };
}

/**
 * oidc-provider's memory adapter stores into a two-generation LRU of 1,000 records, so under
 * load it silently forgets older grants, codes and tokens — a pool of codes would be evicted
 * before use. This storage (the adapter's storage interface) keeps each record until its own
 * expiry, like ours' MemoryStore does.
 */
class UnboundedStorage implements AdapterStorage {
  readonly #entries = new Map<string, { value: unknown; expiresAt: number }>();

  get(key: string): unknown {
    const entry = this.#entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry?.value;
  }

  set(key: string, value: unknown, options: { maxAge?: number } = {}): this {
    const { maxAge } = options;
    this.#entries.set(key, {
      value,
      expiresAt: maxAge === undefined ? Number.POSITIVE_INFINITY : Date.now() + maxAge,
    });
    return this;
  }

  delete(key: string): boolean {
    return this.#entries.delete(key);
  }
}
