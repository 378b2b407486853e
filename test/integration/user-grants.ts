import { createHash } from 'node:crypto';
import {
  type Accounts,
  boundedFetcher,
  type ClientInput,
  claimlessAccounts,
  fetchTransport,
  StoreKeyStore,
  webCryptoSigner,
  webCryptoVerifier,
} from '@gatehouse-oidc/core';
import { bodyLimit } from '@gatehouse-oidc/core/adapter';
import { createLocalJWKSet, type JWK, type JWTPayload, jwtVerify } from 'jose';
import { expect } from 'vitest';
import { RemoteKeySets } from '../../packages/core/src/client-auth/remote-key-sets.js';
import { MetadataDocumentClients } from '../../packages/core/src/client-metadata/document-clients.js';
import type { RealmContext } from '../../packages/core/src/context.js';
import { DpopNonces } from '../../packages/core/src/dpop/nonces.js';
import type { TokenFamily } from '../../packages/core/src/lifecycle/token-family.js';
import { BackchannelDelivery } from '../../packages/core/src/logout/backchannel-delivery.js';
import { ENGLISH_LOGOUT_MESSAGES } from '../../packages/core/src/logout/messages.js';
import {
  type AuthorizationCodeRecord,
  issueAuthorizationCode,
} from '../../packages/core/src/tokens/authorization-code.js';
import { issueRefreshToken } from '../../packages/core/src/tokens/refresh-token.js';
import { SECRETS, TEST_USERS, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { CODE_VERIFIER as BROWSER_CODE_VERIFIER, type browser, clientParams } from './browser.js';
import {
  endpointPath,
  type Harness,
  INTROSPECT,
  JSON_TYPE,
  NO_STORE,
  type TestResponse,
  TOKEN,
} from './harness.js';

/**
 * Codes and refresh tokens minted straight into a harness's store, as the authorization endpoint
 * would mint them, so the token endpoint's grants can be tested on their own.
 */

/** RFC 7636 §4.1: 43 unreserved characters. The challenge is computed independently of core. */
export const CODE_VERIFIER = 'x9Fq_2mK-7pLr.Wc8~ZtYb3NvHd5Js0GaE4uQiRoXw1';
export const CODE_CHALLENGE = createHash('sha256').update(CODE_VERIFIER).digest('base64url');
export const NONCE = 'n-0S6_WzA2Mj';

/**
 * A second confidential client with the same redirect URI, to present web-app's codes and tokens.
 */
export const SECOND_APP = {
  client_id: 'second-app',
  client_secret: 'second-secret-0123456789abcdef',
  token_endpoint_auth_method: 'client_secret_post',
  redirect_uris: [WEB_REDIRECT_URI],
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'openid profile api:read',
} as const satisfies ClientInput;

/** A confidential client the user is never asked to consent to. */
export const TRUSTED_APP = {
  client_id: 'trusted-app',
  client_secret: 'trusted-secret-0123456789',
  token_endpoint_auth_method: 'client_secret_post',
  redirect_uris: [WEB_REDIRECT_URI],
  scope: 'openid profile',
  skip_consent: true,
} as const satisfies ClientInput;

const APP_SECRETS: Readonly<Record<string, string>> = {
  'web-app': SECRETS.web,
  [SECOND_APP.client_id]: SECOND_APP.client_secret,
  [TRUSTED_APP.client_id]: TRUSTED_APP.client_secret,
};

/** POSTs `fields` authenticated as web-app, second-app or trusted-app (client_secret_post). */
export function postAsApp(
  h: Harness,
  clientId: string,
  path: string,
  fields: Record<string, string>,
): Promise<TestResponse> {
  const secret = APP_SECRETS[clientId];
  if (secret === undefined) throw new Error(`no credentials for ${clientId}`);
  return h.post(path, { ...fields, client_id: clientId, client_secret: secret });
}

/** The authorization-code request web-app makes for a code minted with the defaults below. */
export const exchange = (h: Harness, code: string, fields: Record<string, string> = {}) =>
  exchangeAs(h, 'web-app', code, fields);

/** The same request made by `clientId` (web-app or second-app). */
export const exchangeAs = (
  h: Harness,
  clientId: string,
  code: string,
  fields: Record<string, string> = {},
) =>
  postAsApp(h, clientId, TOKEN, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: WEB_REDIRECT_URI,
    code_verifier: CODE_VERIFIER,
    ...fields,
  });

export const refresh = (h: Harness, refreshToken: string, fields: Record<string, string> = {}) =>
  postAsApp(h, 'web-app', TOKEN, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    ...fields,
  });

/** A successful token response's body, after its status and headers. */
export function expectTokens(response: TestResponse): Record<string, unknown> {
  expect(response.status, response.body).toBe(200);
  expect(response.headers).toMatchObject({ 'content-type': JSON_TYPE, ...NO_STORE });
  return response.json();
}

/** The claims of web-app's ID token after checking it against the realm's published keys. */
export async function verifiedIdToken(h: Harness, idToken: unknown): Promise<JWTPayload> {
  const jwks = (await h.get(endpointPath('jwks'))).json().keys as JWK[];
  const { payload, protectedHeader } = await jwtVerify(
    idToken as string,
    createLocalJWKSet({ keys: jwks }),
    { issuer: h.issuer(), audience: 'web-app', currentDate: new Date(h.clock.now()) },
  );
  expect(protectedHeader.typ).toBe('JWT');
  return payload;
}

/** Whether web-app's introspection (or `clientId`'s) sees the access token as active. */
export async function isActive(h: Harness, accessToken: string, clientId = 'web-app') {
  const response =
    clientId in APP_SECRETS
      ? await postAsApp(h, clientId, INTROSPECT, { token: accessToken })
      : await h.introspect(clientId, accessToken);
  return response.json().active === true;
}

/**
 * Every claim of the profile scope (OIDC Core 1.0 §5.4), to see which ones an endpoint releases.
 */
export const DORA_PROFILE = {
  name: 'Dora Explorer',
  given_name: 'Dora',
  family_name: 'Explorer',
  middle_name: 'M',
  nickname: 'dee',
  preferred_username: 'dora',
  profile: 'https://dora.example.com',
  picture: 'https://dora.example.com/me.png',
  website: 'https://dora.example.com/blog',
  gender: 'female',
  birthdate: '1990-04-01',
  zoneinfo: 'Europe/Paris',
  locale: 'fr-FR',
  updated_at: 1_700_000_000,
} as const;

/** Accounts the test can delete users from. */
export function mutableAccounts(): Accounts & { delete(sub: string): void } {
  const deleted = new Set<string>();
  return {
    async findAccount(_realm, sub) {
      const claims = TEST_USERS[sub];
      return claims && !deleted.has(sub) ? { sub, claims } : undefined;
    },
    delete: (sub) => deleted.add(sub),
  };
}

export type UserGrants = Awaited<ReturnType<typeof userGrants>>;

/** Mints codes and refresh tokens into the harness's store, on its clock. */
export async function userGrants(h: Harness, realmName = 'test') {
  const realm = await h.provider.realm(realmName);
  if (!realm) throw new Error(`no realm ${realmName}`);
  const outbound = boundedFetcher(fetchTransport());
  const context: RealmContext = {
    realm,
    store: h.store,
    keys: new StoreKeyStore(h.store, { now: h.clock.now }),
    signer: webCryptoSigner(),
    verifier: webCryptoVerifier(),
    now: h.clock.now,
    maxBodyBytes: bodyLimit(h.provider),
    limits: {
      interactionsPerRealm: 10_000,
      logoutConfirmationsPerRealm: 1_000,
      deviceRequestsPerRealm: 10_000,
    },
    accounts: claimlessAccounts,
    interactionUrl: (interaction) => `${realm.issuer}/interaction/${interaction.id}`,
    deviceVerificationUrl: () => `${realm.issuer}/device`,
    authenticatorPush: undefined,
    outbound,
    remoteKeySets: new RemoteKeySets(
      h.clock.now,
      (error) => {
        throw error;
      },
      {},
      outbound,
    ),
    metadataDocumentClients: new MetadataDocumentClients(h.clock.now, outbound),
    dpopNonces: new DpopNonces(h.store, h.clock.now),
    allowClientIdMetadataDocument: undefined,
    logoutMessages: () => ENGLISH_LOGOUT_MESSAGES,
    backchannel: new BackchannelDelivery(
      (error) => {
        throw error;
      },
      {},
      outbound,
    ),
    reportError: (error) => {
      throw error;
    },
    events: undefined,
  };

  /**
   * Alice's grant to web-app for `openid profile`, signed in 30 s ago; fresh grant id each time.
   */
  const grant = (overrides: Partial<TokenFamily> = {}): TokenFamily => ({
    grantId: crypto.randomUUID(),
    realm: realmName,
    sub: 'alice',
    clientId: 'web-app',
    scopes: ['openid', 'profile'],
    authTime: h.nowSeconds() - 30,
    acr: 'urn:example:loa:2',
    amr: ['pwd', 'otp'],
    sid: 'session-id-1',
    ...overrides,
  });

  /** A code for web-app's redirect URI with PKCE and a nonce; `undefined` removes a field. */
  function code(details: Partial<Omit<AuthorizationCodeRecord, 'exp'>> = {}): Promise<string> {
    const record = {
      ...grant(),
      redirectUri: WEB_REDIRECT_URI,
      codeChallenge: CODE_CHALLENGE,
      nonce: NONCE,
      ...details,
    };
    const defined = Object.entries(record).filter(([, value]) => value !== undefined);
    return issueAuthorizationCode(context, Object.fromEntries(defined) as typeof record);
  }

  const refreshToken = (overrides: Partial<TokenFamily> = {}) =>
    issueRefreshToken(context, grant(overrides));

  return { context, grant, code, refreshToken };
}

/**
 * The tokens `clientId` gets for a sign-in of the browser `b` (`sub` signs in when asked): the
 * code of the whole sign-in, exchanged as the client does.
 */
export async function signedInTokens(
  h: Harness,
  b: ReturnType<typeof browser>,
  clientId = 'web-app',
  sub = 'alice',
) {
  const { code } = clientParams(await b.signIn({ client_id: clientId }, sub)).params;
  const body = expectTokens(
    await postAsApp(h, clientId, TOKEN, {
      grant_type: 'authorization_code',
      code: code ?? '',
      redirect_uri: WEB_REDIRECT_URI,
      code_verifier: BROWSER_CODE_VERIFIER,
    }),
  );
  return {
    accessToken: body.access_token as string,
    refreshToken: body.refresh_token as string,
    idToken: body.id_token as string,
  };
}
