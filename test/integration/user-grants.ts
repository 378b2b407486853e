import { createHash } from 'node:crypto';
import {
  type Accounts,
  type ClientInput,
  claimlessAccounts,
  StoreKeyStore,
  webCryptoSigner,
} from '@gatehouse/core';
import type { RealmContext } from '../../packages/core/src/context.js';
import {
  type AuthorizationCodeRecord,
  issueAuthorizationCode,
} from '../../packages/core/src/tokens/authorization-code.js';
import { issueRefreshToken } from '../../packages/core/src/tokens/refresh-token.js';
import type { UserGrant } from '../../packages/core/src/tokens/user-grant.js';
import { SECRETS, TEST_USERS, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { type Harness, INTROSPECT, type TestResponse, TOKEN } from './harness.js';

/**
 * Codes and refresh tokens minted straight into a harness's store, as the authorization endpoint
 * would mint them, so the token endpoint's grants can be tested on their own.
 */

/** RFC 7636 §4.1: 43 unreserved characters. The challenge is computed independently of core. */
export const CODE_VERIFIER = 'x9Fq_2mK-7pLr.Wc8~ZtYb3NvHd5Js0GaE4uQiRoXw1';
export const CODE_CHALLENGE = createHash('sha256').update(CODE_VERIFIER).digest('base64url');
export const NONCE = 'n-0S6_WzA2Mj';

/** A second confidential client with the same redirect URI, to present web-app's codes and tokens. */
export const SECOND_APP = {
  client_id: 'second-app',
  client_secret: 'second-secret-0123456789abcdef',
  token_endpoint_auth_method: 'client_secret_post',
  redirect_uris: [WEB_REDIRECT_URI],
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'openid profile api:read',
} as const satisfies ClientInput;

const APP_SECRETS: Readonly<Record<string, string>> = {
  'web-app': SECRETS.web,
  [SECOND_APP.client_id]: SECOND_APP.client_secret,
};

/** POSTs `fields` authenticated as web-app or second-app (client_secret_post). */
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
  postAsApp(h, 'web-app', TOKEN, {
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

/** Whether web-app's introspection (or `clientId`'s) sees the access token as active. */
export async function isActive(h: Harness, accessToken: string, clientId = 'web-app') {
  const response =
    clientId in APP_SECRETS
      ? await postAsApp(h, clientId, INTROSPECT, { token: accessToken })
      : await h.introspect(clientId, accessToken);
  return response.json().active === true;
}

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
  const context: RealmContext = {
    realm,
    store: h.store,
    keys: new StoreKeyStore(h.store, { now: h.clock.now }),
    signer: webCryptoSigner(),
    now: h.clock.now,
    maxBodyBytes: h.provider.maxBodyBytes,
    accounts: claimlessAccounts,
    interactionUrl: (interaction) => `${realm.issuer}/interaction/${interaction.id}`,
  };

  /** Alice's grant to web-app for `openid profile`, signed in 30 s ago; fresh grant id each time. */
  const grant = (overrides: Partial<UserGrant> = {}): UserGrant => ({
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

  const refreshToken = (overrides: Partial<UserGrant> = {}) =>
    issueRefreshToken(context, grant(overrides));

  return { context, grant, code, refreshToken };
}
