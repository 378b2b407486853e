import {
  type AuthenticatorPush,
  createProvider,
  type GatehouseResponse,
  type Provider,
} from '@gatehouse-oidc/core';
import { gatehouse } from '@gatehouse-oidc/fastify';
import { nodeCryptoSigner, nodeCryptoVerifier } from '@gatehouse-oidc/node-crypto';
import Fastify from 'fastify';
import { BENCH_CIBA_EXPIRES_IN, BENCH_CIBA_INTERVAL, CIBA_GRANT_TYPE } from '../ciba-request.js';
import {
  BENCH_API_CLIENT,
  BENCH_AUTHORIZATION_REQUEST,
  BENCH_REDIRECT_URI,
  BENCH_RESOURCE,
  BENCH_SCOPE,
  BENCH_SERVICE_CLIENT,
  BENCH_USER,
  BENCH_USER_SCOPE,
  BENCH_WEB_CLIENT_ID,
  BENCH_WEB_CLIENT_SECRET,
  type CredentialKind,
  TOKEN_REQUEST_HEADERS,
  tokenRequestBody,
} from '../token-request.js';
import { countedProvider } from './counted-provider.js';
import { CountingStore } from './counting-store.js';
import { mintMany } from './mint.js';
import type { RunningServer } from './running-server.js';
import { type BenchStore, memoryStore } from './stores.js';

const PREFIX = '/auth';
const BASE_URL = `http://127.0.0.1${PREFIX}`;
const REALM = 'bench';
const AUTHORIZE_PATH = `/oauth/${REALM}/authorize`;
const TOKEN_PATH = `/oauth/${REALM}/token`;

/**
 * Gatehouse as an application would embed it: Fastify adapter, node:crypto signer, ES256 JWT
 * access tokens with the `store` retention policy (every token is recorded), on `benchStore`
 * (in memory unless given) through a CountingStore. Codes live 600 s (the longest allowed) so a
 * pool minted before the run outlives the run. CIBA with an authenticator push that does nothing
 * but count.
 */
export async function startOurs(benchStore: BenchStore = memoryStore()): Promise<RunningServer> {
  const app = Fastify();
  const store = new CountingStore(benchStore.store);
  let pushes = 0;
  const authenticatorPush: AuthenticatorPush = {
    notify: async () => {
      pushes++;
    },
  };
  const provider = createProvider({
    baseUrl: BASE_URL,
    signer: nodeCryptoSigner(),
    verifier: nodeCryptoVerifier(),
    store,
    authenticatorPush,
    realms: [
      {
        name: REALM,
        signing_alg: 'ES256',
        access_token_format: 'jwt',
        access_token_retention_policy: 'store',
        authorization_code_ttl: 600,
        ciba: { interval: BENCH_CIBA_INTERVAL, expires_in: BENCH_CIBA_EXPIRES_IN },
        scopes: ['openid', BENCH_SCOPE],
        resources: [{ uri: BENCH_RESOURCE, client_id: 'bench-api', scopes: [BENCH_SCOPE] }],
        clients: [
          BENCH_SERVICE_CLIENT,
          {
            client_id: BENCH_WEB_CLIENT_ID,
            client_secret: BENCH_WEB_CLIENT_SECRET,
            token_endpoint_auth_method: 'client_secret_post',
            application_type: 'web',
            redirect_uris: [BENCH_REDIRECT_URI],
            response_types: ['code'],
            grant_types: ['authorization_code', 'refresh_token', CIBA_GRANT_TYPE],
            scope: BENCH_USER_SCOPE,
            require_pkce: true,
          },
          BENCH_API_CLIENT,
        ],
      },
    ],
  });
  const counted = countedProvider(provider);
  await app.register(gatehouse, { provider: counted.provider, prefix: PREFIX });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  let browser: Promise<SignedInBrowser> | undefined;
  return {
    baseUrl,
    tokenPath: `${PREFIX}${TOKEN_PATH}`,
    jwksPath: `${PREFIX}/oauth/${REALM}/jwks`,
    backchannelPath: `${PREFIX}/oauth/${REALM}/bc-authorize`,
    parPath: `${PREFIX}/oauth/${REALM}/par`,
    issuerTokenUrl: `${BASE_URL}${TOKEN_PATH}`,
    ...(benchStore.prefix === undefined ? {} : { storePrefix: benchStore.prefix }),
    async mint(kind, count) {
      browser ??= signIn(provider);
      return mintCredentials(provider, await browser, kind, count);
    },
    async counters() {
      await counted.idle();
      const service = await benchStore.serviceStats?.();
      return {
        storeOps: store.counts(),
        pushes,
        requests: counted.answered(),
        ...(service ? { service } : {}),
      };
    },
    async close() {
      await app.close();
      try {
        await provider.close();
      } finally {
        await benchStore.cleanUp();
      }
    },
  };
}

const AUTHORIZE_QUERY = new URLSearchParams(BENCH_AUTHORIZATION_REQUEST).toString();

/** The `Cookie` header of a browser signed in as the bench user, who consented to the web client. */
type SignedInBrowser = { cookie: string };

/**
 * Signs the bench user in once, through the public API as a host application would: the
 * authorization request hands over a login interaction, the host finishes it with the login and
 * the consent, the browser resumes. From then on every authorization request of this browser is
 * answered with a code straight away (session plus remembered consent).
 */
async function signIn(provider: Provider): Promise<SignedInBrowser> {
  const jar = new Map<string, string>();
  const cookie = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const visit = async (url: string) => {
    const { pathname, search } = new URL(url);
    const response = await provider.handle({
      method: 'GET',
      path: pathname.slice(PREFIX.length),
      query: search.slice(1),
      headers: { cookie: cookie() },
    });
    for (const cookie of response.cookies ?? []) {
      const [pair = ''] = cookie.split(';');
      const separator = pair.indexOf('=');
      if (/;\s*Max-Age=0(;|$)/i.test(cookie)) jar.delete(pair.slice(0, separator));
      else jar.set(pair.slice(0, separator), pair.slice(separator + 1));
    }
    return response;
  };

  const toLogin = await visit(`${BASE_URL}${AUTHORIZE_PATH}?${AUTHORIZE_QUERY}`);
  const id = /\/interaction\/([^/?#]+)$/.exec(toLogin.headers.location ?? '')?.[1];
  if (!id) throw new Error(`the first authorization did not ask for a login: ${describe(toLogin)}`);
  const details = await provider.interactions.details(REALM, id, cookie());
  if (!details) throw new Error('the login interaction vanished');
  const resume = await provider.interactions.finish(
    REALM,
    id,
    { login: { sub: BENCH_USER }, consent: { scopes: details.scopes } },
    cookie(),
  );
  codeOf(await visit(resume));
  return { cookie: cookie() };
}

function mintCredentials(
  provider: Provider,
  browser: SignedInBrowser,
  kind: CredentialKind,
  count: number,
): Promise<string[]> {
  const mintCode = async () =>
    codeOf(
      await provider.handle({
        method: 'GET',
        path: AUTHORIZE_PATH,
        query: AUTHORIZE_QUERY,
        headers: { cookie: browser.cookie },
      }),
    );
  if (kind === 'authorization_code') return mintMany(count, mintCode);
  // A refresh token or an ID token only comes from a code exchange: the client's real first
  // token request.
  const field = kind === 'refresh_token' ? 'refresh_token' : 'id_token';
  return mintMany(count, async () => {
    const response = await provider.handle({
      method: 'POST',
      path: TOKEN_PATH,
      query: '',
      headers: { ...TOKEN_REQUEST_HEADERS },
      body: tokenRequestBody('authorization_code', await mintCode()),
    });
    const token = response.status === 200 ? JSON.parse(response.body ?? '{}')[field] : undefined;
    if (typeof token !== 'string') {
      throw new Error(`the code exchange gave no ${field}: ${describe(response)}`);
    }
    return token;
  });
}

/** The code of an authorization response redirected to the web client. */
function codeOf(response: GatehouseResponse): string {
  const location = response.headers.location ?? '';
  const code = location.startsWith(`${BENCH_REDIRECT_URI}?`)
    ? new URL(location).searchParams.get('code')
    : null;
  if (!code) throw new Error(`the authorization gave no code: ${describe(response)}`);
  return code;
}

const describe = (response: GatehouseResponse) =>
  `${response.status} ${response.headers.location ?? ''} ${response.body?.slice(0, 300) ?? ''}`;
