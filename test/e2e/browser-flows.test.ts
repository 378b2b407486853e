import type { ClientInput, RealmInput } from '@gatehouse-oidc/core';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESSES } from '../adapters/harnesses.js';
import {
  API_RESOURCE,
  type ClientKeyPair,
  clientKeyPair,
  OIDC_RESPONSE_TYPES,
  SECRETS,
  TEST_ACCOUNTS,
  TEST_USERS,
  testRealm,
} from '../support/fixtures.js';
import { leftHalfSha256 } from '../support/token-hash.js';
import { type RunningGatehouse, startGatehouse } from './gatehouse-server.js';
import { expectInactiveAs400, expectOAuthError, rejection } from './relying-party-errors.js';
import { type HostDecision, hostInteractionUrl, signInAs, userAgent } from './user-agent.js';

/**
 * Browser sign-in end to end: openid-client v6 as the relying party, Gatehouse mounted under a
 * prefix in Express, Fastify and Hono over real HTTP, the host app's own login and consent page
 * (`interactionUrl`) played by the test, and a cookie-keeping user agent between them. The code
 * flow with PKCE runs for every client authentication method; the implicit and hybrid response
 * types, refresh, userinfo, introspection, revocation and logout run once per framework.
 *
 * openid-client checks what it can: the RFC 9207 `iss` parameter (required in the code flow,
 * compared when present in the others — so the tests require it there), `state`, the ID token's
 * signature against the JWKS (also from the token endpoint, with non-repudiation checks on),
 * `iss`, `aud`, `exp`, `nonce` and, in the hybrid flow, `c_hash`. It never checks `at_hash` nor,
 * for a single audience, `azp`, so the tests do, `at_hash` with a SHA-256 of their own.
 */

const REALM = 'test';
/** A second realm of the same provider: another issuer, for the mix-up test. */
const OTHER_REALM = 'other';
const CALLBACK = 'https://rp.e2e.test/cb';
const SIGNED_OUT = 'https://rp.e2e.test/signed-out';
const ALL_SCOPES = 'openid profile email api:read';

/**
 * alice's claims that each scope releases (OIDC Core 1.0 §5.4), written out rather than computed.
 */
const alice = TEST_USERS.alice ?? {};
const PROFILE_CLAIMS = {
  name: alice.name,
  given_name: alice.given_name,
  family_name: alice.family_name,
  preferred_username: alice.preferred_username,
  locale: alice.locale,
  updated_at: alice.updated_at,
};
const EMAIL_CLAIMS = { email: alice.email, email_verified: alice.email_verified };

const RP_SECRETS = {
  post: 'rp-post-secret-0123456789abcdef',
  basic: 'rp-basic-secret-0123456789abcdef',
  jwt: 'rp-jwt-secret-0123456789abcdef0123456789',
} as const;

let clientKeys: ClientKeyPair;
let rpKeys: ClientKeyPair;
beforeAll(async () => {
  [clientKeys, rpKeys] = await Promise.all([clientKeyPair(), clientKeyPair()]);
});

interface RelyingParty {
  clientId: string;
  method: NonNullable<ClientInput['token_endpoint_auth_method']>;
  /** What the realm registers to check the client's credentials. */
  registered: () => Partial<ClientInput>;
  /** The same method as openid-client implements it. */
  auth: () => oidc.ClientAuth;
}

/** One browser client per client authentication method, all alike otherwise. */
const RELYING_PARTIES: readonly RelyingParty[] = [
  {
    clientId: 'rp-post',
    method: 'client_secret_post',
    registered: () => ({ client_secret: RP_SECRETS.post }),
    auth: () => oidc.ClientSecretPost(RP_SECRETS.post),
  },
  {
    clientId: 'rp-basic',
    method: 'client_secret_basic',
    registered: () => ({ client_secret: RP_SECRETS.basic }),
    auth: () => oidc.ClientSecretBasic(RP_SECRETS.basic),
  },
  {
    clientId: 'rp-jwt',
    method: 'client_secret_jwt',
    registered: () => ({ client_secret: RP_SECRETS.jwt }),
    auth: () => oidc.ClientSecretJwt(RP_SECRETS.jwt),
  },
  {
    clientId: 'rp-key',
    method: 'private_key_jwt',
    registered: () => ({ jwks: { keys: [rpKeys.publicJwk as never] } }),
    auth: () => oidc.PrivateKeyJwt({ key: rpKeys.privateKey, kid: rpKeys.publicJwk.kid }),
  },
  {
    clientId: 'rp-public',
    method: 'none',
    registered: () => ({}),
    auth: () => oidc.None(),
  },
];
const CONFIDENTIAL_RP = relyingParty('rp-post');
const PUBLIC_RP = relyingParty('rp-public');

function relyingParty(clientId: string): RelyingParty {
  const found = RELYING_PARTIES.find((rp) => rp.clientId === clientId);
  if (!found) throw new Error(`no relying party ${clientId}`);
  return found;
}

/** The test realm — its Protected Resources and their clients — with the relying parties added. */
function realmWithRelyingParties(name: string): RealmInput {
  const base = testRealm(clientKeys, { name });
  const relyingParties = RELYING_PARTIES.map(
    (rp): ClientInput => ({
      client_id: rp.clientId,
      token_endpoint_auth_method: rp.method,
      ...rp.registered(),
      redirect_uris: [CALLBACK],
      post_logout_redirect_uris: [SIGNED_OUT],
      response_types: [...OIDC_RESPONSE_TYPES],
      grant_types: ['authorization_code', 'refresh_token'],
      scope: ALL_SCOPES,
    }),
  );
  return { ...base, clients: [...(base.clients ?? []), ...relyingParties] };
}

/** A response carrying tokens came in the fragment, with nothing in the query (RFC 9700 §4.3.2). */
function fragmentOf(callback: URL): URLSearchParams {
  expect(callback.search).toBe('');
  expect(callback.hash).not.toBe('');
  return new URLSearchParams(callback.hash.slice(1));
}

describe.each(HARNESSES)('browser sign-in with openid-client in $name', (harness) => {
  let gatehouse: RunningGatehouse;

  beforeAll(async () => {
    gatehouse = await startGatehouse(
      harness,
      [realmWithRelyingParties(REALM), realmWithRelyingParties(OTHER_REALM)],
      { accounts: TEST_ACCOUNTS, interactionUrl: hostInteractionUrl },
    );
  });

  afterAll(() => gatehouse?.close());

  /** A relying party configured from the realm's discovery document, as in production. */
  const connect = (
    rp: RelyingParty,
    realm = REALM,
    ...execute: Array<(config: oidc.Configuration) => void>
  ) =>
    oidc.discovery(new URL(gatehouse.issuer(realm)), rp.clientId, undefined, rp.auth(), {
      [oidc.customFetch]: gatehouse.fetch,
      execute: [oidc.enableNonRepudiationChecks, ...execute],
    });

  /** The resource server of API_RESOURCE, which introspects the tokens meant for it. */
  const asApi = () =>
    oidc.discovery(
      new URL(gatehouse.issuer(REALM)),
      'api',
      undefined,
      oidc.ClientSecretBasic(SECRETS.api),
      { [oidc.customFetch]: gatehouse.fetch },
    );

  const newBrowser = (decide: HostDecision = signInAs('alice')) => userAgent(gatehouse, decide);

  /**
   * Sends the browser to the authorization endpoint with a fresh state and nonce — and PKCE when
   * a code is asked for — and returns where the provider sent it back to the relying party.
   */
  async function authorize(
    config: oidc.Configuration,
    responseType: string,
    params: Record<string, string> = {},
    browser = newBrowser(),
  ) {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const pkce: Record<string, string> = responseType.split(' ').includes('code')
      ? {
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        }
      : {};
    const url = oidc.buildAuthorizationUrl(config, {
      response_type: responseType,
      redirect_uri: CALLBACK,
      scope: ALL_SCOPES,
      state,
      nonce,
      ...pkce,
      ...params,
    });
    return { callback: await browser.navigate(url), verifier, state, nonce, browser };
  }

  /** The code flow to its end: openid-client checks the response and the ID token, and redeems. */
  async function codeFlow(
    config: oidc.Configuration,
    params: Record<string, string> = {},
    browser = newBrowser(),
  ) {
    const authorization = await authorize(config, 'code', params, browser);
    const tokens = await oidc.authorizationCodeGrant(config, authorization.callback, {
      pkceCodeVerifier: authorization.verifier,
      expectedState: authorization.state,
      expectedNonce: authorization.nonce,
    });
    return { ...authorization, tokens };
  }

  describe('authorization code with PKCE', () => {
    it.each(RELYING_PARTIES)('$clientId ($method): signs alice in, then refreshes', async (rp) => {
      const issuer = gatehouse.issuer(REALM);
      const config = await connect(rp);
      const { callback, tokens, nonce, browser } = await codeFlow(config);

      expect(callback.searchParams.get('iss')).toBe(issuer);
      expect(callback.hash).toBe('');
      // The host's page saw this client's request (consent may be remembered from before).
      expect(browser.interactions[0]).toMatchObject({ prompt: 'login', realm: REALM });
      for (const interaction of browser.interactions) {
        expect(interaction).toMatchObject({
          client: { id: rp.clientId },
          scopes: ALL_SCOPES.split(' '),
        });
      }
      expect(tokens).toMatchObject({
        token_type: 'bearer',
        scope: ALL_SCOPES,
        refresh_token: expect.any(String),
      });
      expect(tokens.claims()).toMatchObject({
        iss: issuer,
        sub: 'alice',
        aud: rp.clientId,
        azp: rp.clientId,
        nonce,
        at_hash: leftHalfSha256(tokens.access_token),
      });

      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token ?? '');
      expect(refreshed.access_token).not.toBe(tokens.access_token);
      expect(refreshed.refresh_token).toEqual(expect.any(String));
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      const refreshedClaims = refreshed.claims();
      expect(refreshedClaims).toMatchObject({
        iss: issuer,
        sub: 'alice',
        aud: rp.clientId,
        auth_time: tokens.claims()?.auth_time,
        at_hash: leftHalfSha256(refreshed.access_token),
      });
      expect(refreshedClaims?.nonce).toBeUndefined();
    });

    it('signs in silently the second time: the session cookie comes back under the prefix', async () => {
      const config = await connect(CONFIDENTIAL_RP);
      const browser = newBrowser();
      const first = await codeFlow(config, {}, browser);
      const asked = browser.interactions.length;
      const second = await codeFlow(config, {}, browser);

      expect(asked).toBeGreaterThan(0);
      expect(browser.interactions).toHaveLength(asked);
      expect(second.tokens.claims()).toMatchObject({
        sub: 'alice',
        auth_time: first.tokens.claims()?.auth_time,
        sid: first.tokens.claims()?.sid,
      });
    });

    it("refuses, as openid-client, a response from another realm: the iss parameter is that realm's (mix-up)", async () => {
      const config = await connect(CONFIDENTIAL_RP);
      const otherConfig = await connect(CONFIDENTIAL_RP, OTHER_REALM);
      const { callback, verifier, state, nonce } = await authorize(otherConfig, 'code');
      expect(callback.searchParams.get('iss')).toBe(gatehouse.issuer(OTHER_REALM));
      const checks = { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce };

      const thrown = await rejection(oidc.authorizationCodeGrant(config, callback, checks));
      expect(thrown).toMatchObject({ code: 'OAUTH_INVALID_RESPONSE' });
      expect((thrown as Error).cause).toMatchObject({
        message: 'unexpected "iss" (issuer) response parameter value',
      });
      // Refused before the code was sent anywhere: the realm that issued it still redeems it.
      const tokens = await oidc.authorizationCodeGrant(otherConfig, callback, checks);
      expect(tokens.claims()?.iss).toBe(gatehouse.issuer(OTHER_REALM));
    });

    it('sends a refusal back with iss too: openid-client takes it as the error of this issuer', async () => {
      const config = await connect(CONFIDENTIAL_RP);
      const refuses = newBrowser((interaction) =>
        interaction.prompt === 'login' ? { login: { sub: 'alice' } } : { error: 'access_denied' },
      );
      const { callback, verifier, state } = await authorize(
        config,
        'code',
        { prompt: 'consent' },
        refuses,
      );

      expect(callback.searchParams.get('iss')).toBe(gatehouse.issuer(REALM));
      const thrown = await rejection(
        oidc.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: verifier,
          expectedState: state,
        }),
      );
      expect(thrown).toBeInstanceOf(oidc.AuthorizationResponseError);
      expect(thrown).toMatchObject({ error: 'access_denied' });
    });
  });

  describe('implicit and hybrid response types, from the fragment', () => {
    it('id_token: the ID token is validated and carries the claims, there being no access token', async () => {
      const config = await connect(PUBLIC_RP, REALM, oidc.useIdTokenResponseType);
      const { callback, state, nonce } = await authorize(config, 'id_token');
      const fragment = fragmentOf(callback);

      const claims = await oidc.implicitAuthentication(config, callback, nonce, {
        expectedState: state,
      });

      expect(fragment.get('iss')).toBe(gatehouse.issuer(REALM));
      expect(fragment.has('access_token')).toBe(false);
      expect(claims).toMatchObject({
        iss: gatehouse.issuer(REALM),
        sub: 'alice',
        aud: PUBLIC_RP.clientId,
        nonce,
        ...PROFILE_CLAIMS,
        ...EMAIL_CLAIMS,
      });
      expect(claims.at_hash).toBeUndefined();
    });

    it('id_token token: at_hash binds the access token, which userinfo takes', async () => {
      const config = await connect(PUBLIC_RP, REALM, oidc.useIdTokenResponseType);
      const { callback, state, nonce } = await authorize(config, 'id_token token');
      const fragment = fragmentOf(callback);
      const accessToken = fragment.get('access_token') ?? '';

      const claims = await oidc.implicitAuthentication(config, callback, nonce, {
        expectedState: state,
      });

      expect(fragment.get('iss')).toBe(gatehouse.issuer(REALM));
      expect(fragment.get('token_type')).toBe('Bearer');
      expect(claims).toMatchObject({ sub: 'alice', nonce, at_hash: leftHalfSha256(accessToken) });
      expect(claims.name).toBeUndefined();
      expect(await oidc.fetchUserInfo(config, accessToken, claims.sub)).toMatchObject({
        sub: 'alice',
        ...PROFILE_CLAIMS,
      });
    });

    it.each(['code id_token', 'code id_token token'])(
      '%s: openid-client checks c_hash and nonce, then redeems the code with PKCE',
      async (responseType) => {
        const config = await connect(CONFIDENTIAL_RP, REALM, oidc.useCodeIdTokenResponseType);
        const { callback, verifier, state, nonce } = await authorize(config, responseType);
        const fragment = fragmentOf(callback);
        const frontChannel = decodeJwt(fragment.get('id_token') ?? '');

        const tokens = await oidc.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: verifier,
          expectedState: state,
          expectedNonce: nonce,
        });

        expect(fragment.get('iss')).toBe(gatehouse.issuer(REALM));
        expect(frontChannel.c_hash).toBe(leftHalfSha256(fragment.get('code') ?? ''));
        const accessToken = fragment.get('access_token');
        if (responseType.split(' ').includes('token')) {
          expect(frontChannel.at_hash).toBe(leftHalfSha256(accessToken ?? ''));
          const userinfo = await oidc.fetchUserInfo(config, accessToken ?? '', 'alice');
          expect(userinfo).toMatchObject(EMAIL_CLAIMS);
        } else {
          expect(accessToken).toBeNull();
        }
        expect(tokens.claims()).toMatchObject({
          sub: frontChannel.sub,
          nonce,
          at_hash: leftHalfSha256(tokens.access_token),
        });
      },
    );

    it('code token: the fragment posted to the relying party is checked (iss, state) and its code redeemed', async () => {
      const config = await connect(CONFIDENTIAL_RP);
      const { callback, verifier, state, nonce } = await authorize(config, 'code token');
      const fragment = fragmentOf(callback);
      // The callback page's script posts the fragment to its server, which hands it over.
      const posted = new Request(CALLBACK, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: fragment.toString(),
      });

      const tokens = await oidc.authorizationCodeGrant(config, posted, {
        pkceCodeVerifier: verifier,
        expectedState: state,
        expectedNonce: nonce,
      });

      expect(tokens.claims()).toMatchObject({ sub: 'alice', nonce });
      const frontChannelToken = fragment.get('access_token') ?? '';
      expect(frontChannelToken).not.toBe(tokens.access_token);
      expect(await oidc.fetchUserInfo(config, frontChannelToken, 'alice')).toMatchObject({
        sub: 'alice',
      });
    });
  });

  describe('refresh and revocation', () => {
    it('rotates the refresh token: the old one then fails, and takes the new one with it', async () => {
      const config = await connect(CONFIDENTIAL_RP);
      const { tokens } = await codeFlow(config);
      const rotated = await oidc.refreshTokenGrant(config, tokens.refresh_token ?? '');

      await expectOAuthError(oidc.refreshTokenGrant(config, tokens.refresh_token ?? ''), {
        status: 400,
        error: 'invalid_grant',
      });
      await expectOAuthError(oidc.refreshTokenGrant(config, rotated.refresh_token ?? ''), {
        status: 400,
        error: 'invalid_grant',
      });
    });

    it('revoking the refresh token ends the grant: refresh fails, the access token is inactive', async () => {
      const config = await connect(CONFIDENTIAL_RP);
      const { tokens } = await codeFlow(config);
      expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({
        active: true,
        sub: 'alice',
      });

      await oidc.tokenRevocation(config, tokens.refresh_token ?? '');

      await expectOAuthError(oidc.refreshTokenGrant(config, tokens.refresh_token ?? ''), {
        status: 400,
        error: 'invalid_grant',
      });
      await expectInactiveAs400(oidc.tokenIntrospection(config, tokens.access_token));
    });
  });

  describe('userinfo', () => {
    it.each([
      { scope: 'openid profile', released: PROFILE_CLAIMS },
      { scope: 'openid email', released: EMAIL_CLAIMS },
      { scope: 'openid', released: {} },
    ])(
      'releases the claims of "$scope" for the sub of the ID token',
      async ({ scope, released }) => {
        const config = await connect(CONFIDENTIAL_RP);
        const { tokens } = await codeFlow(config, { scope });
        const sub = tokens.claims()?.sub ?? '';

        const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, sub);

        expect(userinfo).toEqual({
          sub: 'alice',
          ...released,
          iss: gatehouse.issuer(REALM),
          aud: CONFIDENTIAL_RP.clientId,
          iat: expect.any(Number),
          nbf: expect.any(Number),
          exp: expect.any(Number),
        });
      },
    );
  });

  describe('introspection of a user token by the resource it is for', () => {
    it('shows the profile claims when profile was granted', async () => {
      const config = await connect(CONFIDENTIAL_RP);
      const scope = 'openid profile api:read';
      const { tokens } = await codeFlow(config, { scope, resource: API_RESOURCE });

      const introspection = await oidc.tokenIntrospection(await asApi(), tokens.access_token);

      expect(introspection).toMatchObject({
        active: true,
        iss: gatehouse.issuer(REALM),
        sub: 'alice',
        client_id: CONFIDENTIAL_RP.clientId,
        aud: API_RESOURCE,
        resource: API_RESOURCE,
        scope,
        ...PROFILE_CLAIMS,
        birthdate: null,
        gender: null,
        middle_name: null,
      });
      expect(introspection.email).toBeUndefined();
      // Meant for the resource: the client it was issued to does not see it.
      await expectInactiveAs400(oidc.tokenIntrospection(config, tokens.access_token));
    });

    it('shows no profile claims without profile', async () => {
      const config = await connect(CONFIDENTIAL_RP);
      const { tokens } = await codeFlow(config, {
        scope: 'openid api:read',
        resource: API_RESOURCE,
      });

      const introspection = await oidc.tokenIntrospection(await asApi(), tokens.access_token);

      expect(introspection).toMatchObject({ active: true, sub: 'alice', scope: 'openid api:read' });
      expect(introspection.name).toBeUndefined();
      expect(introspection.birthdate).toBeUndefined();
    });
  });

  describe('RP-initiated logout', () => {
    it('ends the session: the next sign-in asks alice to log in again', async () => {
      const config = await connect(CONFIDENTIAL_RP);
      const browser = newBrowser();
      const { tokens } = await codeFlow(config, {}, browser);
      const asked = browser.interactions.length;

      const signedOut = await browser.navigate(
        oidc.buildEndSessionUrl(config, {
          id_token_hint: tokens.id_token ?? '',
          post_logout_redirect_uri: SIGNED_OUT,
          state: 'bye',
        }),
      );
      expect(signedOut.href).toBe(`${SIGNED_OUT}?state=bye`);

      await codeFlow(config, {}, browser);
      expect(browser.interactions.slice(asked)).toMatchObject([{ prompt: 'login' }]);
    });
  });
});
