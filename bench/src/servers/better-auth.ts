import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { oauthProvider } from '@better-auth/oauth-provider';
import { type BetterAuthOptions, betterAuth } from 'better-auth';
import { toNodeHandler } from 'better-auth/node';
import { jwt } from 'better-auth/plugins';
import {
  BENCH_AUTHORIZATION_REQUEST,
  BENCH_CLIENT_ID,
  BENCH_CLIENT_SECRET,
  BENCH_REDIRECT_URI,
  BENCH_RESOURCE,
  BENCH_SCOPE,
  BENCH_USER,
  BENCH_WEB_CLIENT_ID,
  BENCH_WEB_CLIENT_SECRET,
  type CredentialKind,
  TOKEN_REQUEST_HEADERS,
  tokenRequestBody,
} from '../token-request.js';
import type { BetterAuthDatabase } from './better-auth-databases.js';
import { listenOnLoopback } from './listen.js';
import { mintMany } from './mint.js';
import type { RunningServer } from './running-server.js';

const DAY = 86_400;
/** Where better-auth mounts its routes unless told otherwise (`basePath`). */
const BASE_PATH = '/api/auth';
/** better-auth issues a refresh token only to an authorization that includes this scope. */
const OFFLINE_ACCESS = 'offline_access';
/** The bench user signs in with a password: better-auth's authorization endpoint needs a session. */
const BENCH_USER_EMAIL = 'bench-user@example.com';
const BENCH_USER_PASSWORD = 'bench-user-password-0123456789';

/**
 * better-auth 1.7 with its OAuth 2.1 provider plugin (`@better-auth/oauth-provider`), set up as
 * its documentation's installation steps do: the `jwt` plugin beside it (key pair ES256 instead
 * of its EdDSA default, as ours signs), better-auth's own `/token` route disabled, on `database`
 * (its memory adapter, or PostgreSQL through its Kysely adapter: better-auth-databases.ts),
 * served by `toNodeHandler` on a Node http server. Two clients registered through its admin
 * endpoint (it needs a signed-in user whom `clientPrivileges` allows; the bench user here): the
 * machine client for client_credentials with client_secret_post, the API scope allowed, linked
 * to the API resource (per-client resources are enforced by default); and the web client for the
 * code exchange (PKCE S256) and refresh, first-party (`skip_consent`). Lifetimes are ours'
 * defaults; rate limiting and telemetry are off, as on every peer.
 */
export async function startBetterAuth(database: BetterAuthDatabase): Promise<RunningServer> {
  const server = createServer();
  await listenOnLoopback(server);
  const { port } = server.address() as AddressInfo;
  const baseURL = `http://127.0.0.1:${port}`;
  // Its generators, called once per registered client: the bench's fixed credentials, in order.
  const clientIds = [BENCH_CLIENT_ID, BENCH_WEB_CLIENT_ID];
  const clientSecrets = [BENCH_CLIENT_SECRET, BENCH_WEB_CLIENT_SECRET];
  const nextOf = (queue: string[]) => () => {
    const next = queue.shift();
    if (next === undefined) throw new Error('better-auth registered more clients than the bench');
    return next;
  };
  const options = {
    baseURL,
    basePath: BASE_PATH,
    secret: randomBytes(32).toString('hex'),
    database: database.adapter,
    emailAndPassword: { enabled: true },
    // The docs' installation: the OAuth token endpoint replaces the jwt plugin's `/token`.
    disabledPaths: ['/token'],
    rateLimit: { enabled: false },
    telemetry: { enabled: false },
    logger: { level: 'error' },
    databaseHooks: {
      // The bench user's id is the subject every peer's ID tokens name.
      user: { create: { before: async (user) => ({ data: { ...user, id: BENCH_USER } }) } },
    },
    plugins: [
      jwt({ jwks: { keyPairConfig: { alg: 'ES256' } } }),
      oauthProvider({
        loginPage: '/sign-in',
        consentPage: '/consent',
        scopes: ['openid', OFFLINE_ACCESS, BENCH_SCOPE],
        resources: [BENCH_RESOURCE],
        accessTokenExpiresIn: 600,
        m2mAccessTokenExpiresIn: 600,
        idTokenExpiresIn: 3600,
        refreshTokenExpiresIn: 30 * DAY,
        codeExpiresIn: 600,
        clientPrivileges: async ({ user }) => user?.id === BENCH_USER,
        resourcePrivileges: async ({ user }) => user?.id === BENCH_USER,
        generateClientId: nextOf(clientIds),
        generateClientSecret: nextOf(clientSecrets),
      }),
    ],
  } satisfies BetterAuthOptions;
  await database.prepare(options);
  const auth = betterAuth(options);

  const signedIn = await auth.api.signUpEmail({
    body: { email: BENCH_USER_EMAIL, password: BENCH_USER_PASSWORD, name: 'Bench User' },
    returnHeaders: true,
  });
  const sessionCookie = signedIn.headers.get('set-cookie')?.split(';')[0];
  if (!sessionCookie) throw new Error('better-auth signed the bench user in without a cookie');
  const headers = new Headers({ cookie: sessionCookie });
  await auth.api.adminCreateOAuthClient({
    headers,
    body: {
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['client_credentials'],
      client_credentials_scopes: [BENCH_SCOPE],
    },
  });
  await auth.api.adminCreateOAuthClient({
    headers,
    body: {
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      redirect_uris: [BENCH_REDIRECT_URI],
      scope: `openid ${OFFLINE_ACCESS} ${BENCH_SCOPE}`,
      skip_consent: true,
    },
  });
  for (const clientId of [BENCH_CLIENT_ID, BENCH_WEB_CLIENT_ID]) {
    await auth.api.adminLinkClientResource({
      headers,
      params: { identifier: BENCH_RESOURCE, client_id: clientId },
    });
  }

  /** A code from its authorization endpoint, the signed-in bench user authorizing the web client. */
  const mintCode = async (): Promise<string> => {
    const query = new URLSearchParams({
      ...BENCH_AUTHORIZATION_REQUEST,
      scope: `${BENCH_AUTHORIZATION_REQUEST.scope} ${OFFLINE_ACCESS}`,
    });
    const response = await auth.handler(
      new Request(`${baseURL}${BASE_PATH}/oauth2/authorize?${query}`, { headers }),
    );
    const location = response.headers.get('location');
    const code = location ? new URL(location).searchParams.get('code') : null;
    if (!code) throw new Error(`the authorization answered ${response.status} ${location}`);
    return code;
  };
  /** A refresh token from its token endpoint, by a code exchange. */
  const mintRefresh = async (): Promise<string> => {
    const response = await auth.handler(
      new Request(`${baseURL}${BASE_PATH}/oauth2/token`, {
        method: 'POST',
        headers: TOKEN_REQUEST_HEADERS,
        body: tokenRequestBody('authorization_code', await mintCode()),
      }),
    );
    const text = await response.text();
    const refreshToken = response.status === 200 ? JSON.parse(text).refresh_token : undefined;
    if (typeof refreshToken !== 'string') throw new Error(`no refresh_token: ${text}`);
    return refreshToken;
  };
  const minters: Partial<Record<CredentialKind, () => Promise<string>>> = {
    authorization_code: mintCode,
    refresh_token: mintRefresh,
  };

  server.on('request', toNodeHandler(auth));
  return {
    baseUrl: baseURL,
    tokenPath: `${BASE_PATH}/oauth2/token`,
    jwksPath: `${BASE_PATH}/jwks`,
    ...(database.prefix === undefined ? {} : { storePrefix: database.prefix }),
    mint: (kind, count) => {
      const minter = minters[kind];
      if (!minter) throw new Error(`better-auth has no ${kind}: it does not do CIBA`);
      return mintMany(count, minter);
    },
    close: async () => {
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
      await database.cleanUp();
    },
  };
}
