import { createRemoteJWKSet, customFetch, decodeJwt, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESSES } from '../adapters/harnesses.js';
import {
  API_RESOURCE,
  type ClientKeyPair,
  clientKeyPair,
  SECRETS,
  testRealm,
} from '../support/fixtures.js';
import { type RunningGatehouse, startGatehouse } from './gatehouse-server.js';
import {
  expectBasicChallenge,
  expectInactiveAs200,
  expectInactiveAs400,
  expectOAuthError,
} from './relying-party-errors.js';

/**
 * openid-client v6 — an independent, strict relying party — drives Gatehouse over real HTTP in
 * every framework adapter: discovery, client credentials with every client authentication method
 * (openid-client builds the assertions itself), introspection and revocation. Mistakes our own
 * tests would share with the implementation show up here as openid-client refusing a response.
 */

/** Not the default, so a token's lifetime can only match if the realm setting was applied. */
const ACCESS_TOKEN_TTL = 420;
/** Answers `{active:false}` with 400, as docs/interface.md §7.3 says. */
const INTERFACE_REALM = 'test';
/** Answers `{active:false}` with 200, as RFC 7662 says. */
const RFC7662_REALM = 'rfc7662';

const INTROSPECTION_REALMS = [
  { realm: INTERFACE_REALM, inactiveStatus: 400, expectInactive: expectInactiveAs400 },
  { realm: RFC7662_REALM, inactiveStatus: 200, expectInactive: expectInactiveAs200 },
];

let clientKeys: ClientKeyPair;
/** A key pair no client registered. */
let strangerKeys: ClientKeyPair;
beforeAll(async () => {
  [clientKeys, strangerKeys] = await Promise.all([clientKeyPair(), clientKeyPair()]);
});

/** Each machine client of the realm, with its registered method as openid-client implements it. */
const MACHINE_CLIENTS: ReadonlyArray<{
  clientId: string;
  method: string;
  auth: () => oidc.ClientAuth;
}> = [
  {
    clientId: 'post-client',
    method: 'client_secret_post',
    auth: () => oidc.ClientSecretPost(SECRETS.post),
  },
  {
    clientId: 'basic-client',
    method: 'client_secret_basic',
    auth: () => oidc.ClientSecretBasic(SECRETS.basic),
  },
  {
    clientId: 'jwt-client',
    method: 'client_secret_jwt',
    auth: () => oidc.ClientSecretJwt(SECRETS.jwt),
  },
  {
    clientId: 'key-client',
    method: 'private_key_jwt',
    auth: () => oidc.PrivateKeyJwt({ key: clientKeys.privateKey, kid: clientKeys.publicJwk.kid }),
  },
];

/**
 * The registered method with the wrong secret or key; client_secret_basic is answered apart (401).
 */
const WRONG_CREDENTIALS = [
  {
    clientId: 'post-client',
    method: 'client_secret_post',
    auth: () => oidc.ClientSecretPost(`${SECRETS.post}x`),
  },
  {
    clientId: 'jwt-client',
    method: 'client_secret_jwt',
    auth: () => oidc.ClientSecretJwt(`${SECRETS.jwt}x`),
  },
  {
    clientId: 'key-client',
    method: 'private_key_jwt',
    auth: () => oidc.PrivateKeyJwt(strangerKeys.privateKey),
  },
];

/** A client presenting a method other than its registered one (or its secret the wrong way). */
const WRONG_METHODS = [
  {
    clientId: 'basic-client',
    used: 'client_secret_post',
    auth: () => oidc.ClientSecretPost(SECRETS.basic),
  },
  {
    clientId: 'jwt-client',
    used: 'client_secret_post',
    auth: () => oidc.ClientSecretPost(SECRETS.jwt),
  },
  {
    clientId: 'post-client',
    used: 'client_secret_jwt',
    auth: () => oidc.ClientSecretJwt(SECRETS.post),
  },
  {
    clientId: 'jwt-client',
    used: 'private_key_jwt',
    auth: () => oidc.PrivateKeyJwt(clientKeys.privateKey),
  },
  { clientId: 'key-client', used: 'none', auth: () => oidc.None() },
];

describe.each(HARNESSES)('openid-client against Gatehouse in $name', (harness) => {
  let gatehouse: RunningGatehouse;

  beforeAll(async () => {
    gatehouse = await startGatehouse(harness, [
      testRealm(clientKeys, { name: INTERFACE_REALM, access_token_ttl: ACCESS_TOKEN_TTL }),
      testRealm(clientKeys, {
        name: RFC7662_REALM,
        access_token_ttl: ACCESS_TOKEN_TTL,
        introspection_inactive_status: 200,
      }),
    ]);
  });

  afterAll(() => gatehouse?.close());

  /**
   * Discovers the realm from its issuer URL, as a relying party configured with only that would.
   */
  const connect = (realm: string, clientId: string, auth: oidc.ClientAuth) =>
    oidc.discovery(new URL(gatehouse.issuer(realm)), clientId, undefined, auth, {
      [oidc.customFetch]: gatehouse.fetch,
    });
  /** The resource server of API_RESOURCE, registered with client_secret_basic. */
  const asApi = (realm: string) => connect(realm, 'api', oidc.ClientSecretBasic(SECRETS.api));
  const asOtherApi = (realm: string) =>
    connect(realm, 'other-api', oidc.ClientSecretPost(SECRETS.other));
  const asPostClient = (realm: string) =>
    connect(realm, 'post-client', oidc.ClientSecretPost(SECRETS.post));

  async function tokenForApi(realm: string): Promise<string> {
    const config = await asPostClient(realm);
    const tokens = await oidc.clientCredentialsGrant(config, {
      scope: 'api:read',
      resource: API_RESOURCE,
    });
    return tokens.access_token;
  }

  describe('discovery', () => {
    it('accepts the metadata: its issuer is the URL discovered from, and it lists every endpoint', async () => {
      const issuer = gatehouse.issuer(INTERFACE_REALM);
      const metadata = (
        await connect(INTERFACE_REALM, 'post-client', oidc.None())
      ).serverMetadata();

      expect(metadata).toMatchObject({
        issuer,
        jwks_uri: `${issuer}/jwks`,
        token_endpoint: `${issuer}/token`,
        introspection_endpoint: `${issuer}/introspect`,
        revocation_endpoint: `${issuer}/revoke`,
        grant_types_supported: expect.arrayContaining(['client_credentials']),
      });
      expect(metadata.token_endpoint_auth_methods_supported).toEqual(
        expect.arrayContaining(MACHINE_CLIENTS.map(({ method }) => method)),
      );
    });
  });

  describe('client credentials', () => {
    it.each(MACHINE_CLIENTS)(
      'issues an access token to $clientId ($method)',
      async ({ clientId, auth }) => {
        const config = await connect(INTERFACE_REALM, clientId, auth());

        const first = await oidc.clientCredentialsGrant(config, { scope: 'api:read' });
        // A second request proves openid-client's fresh assertion (new jti) is not taken for a
        // replay.
        const second = await oidc.clientCredentialsGrant(config, { scope: 'api:read' });

        expect(first).toMatchObject({
          token_type: 'bearer',
          expires_in: ACCESS_TOKEN_TTL,
          scope: 'api:read',
        });
        expect(first.id_token).toBeUndefined();
        expect(first.refresh_token).toBeUndefined();
        expect(decodeJwt(first.access_token)).toMatchObject({
          sub: clientId,
          client_id: clientId,
          aud: clientId,
        });
        expect(second.access_token).not.toBe(first.access_token);
      },
    );

    it('makes the requested resource the audience of a token that verifies against the published JWKS', async () => {
      const { issuer, jwks_uri } = (await asPostClient(INTERFACE_REALM)).serverMetadata();
      const jwks = createRemoteJWKSet(new URL(jwks_uri as string), {
        [customFetch]: gatehouse.fetch,
      });

      const token = await tokenForApi(INTERFACE_REALM);
      const { payload, protectedHeader } = await jwtVerify(token, jwks, {
        issuer,
        audience: API_RESOURCE,
        typ: 'at+jwt',
      });

      expect(protectedHeader.alg).toBe('ES256');
      expect(payload).toMatchObject({
        sub: 'post-client',
        client_id: 'post-client',
        scope: 'api:read',
      });
      expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(ACCESS_TOKEN_TTL);
    });

    it('refuses a native client (none): it is identified but not allowed the grant', async () => {
      const config = await connect(INTERFACE_REALM, 'native-client', oidc.None());
      await expectOAuthError(oidc.clientCredentialsGrant(config, { scope: 'api:read' }), {
        status: 400,
        error: 'unauthorized_client',
      });
    });
  });

  describe('client authentication failures', () => {
    it.each(WRONG_CREDENTIALS)(
      'answers a wrong $method credential with invalid_client',
      async ({ clientId, auth }) => {
        const config = await connect(INTERFACE_REALM, clientId, auth());
        await expectOAuthError(oidc.clientCredentialsGrant(config), {
          status: 400,
          error: 'invalid_client',
        });
      },
    );

    it('answers a wrong client_secret_basic secret with a 401 Basic challenge', async () => {
      const config = await connect(
        INTERFACE_REALM,
        'basic-client',
        oidc.ClientSecretBasic(`${SECRETS.basic}x`),
      );
      await expectBasicChallenge(oidc.clientCredentialsGrant(config));
    });

    it.each(WRONG_METHODS)(
      'refuses $clientId authenticating with $used instead of its registered method',
      async ({ clientId, auth }) => {
        const config = await connect(INTERFACE_REALM, clientId, auth());
        await expectOAuthError(oidc.clientCredentialsGrant(config), {
          status: 400,
          error: 'invalid_client',
        });
      },
    );

    it('refuses post-client authenticating with client_secret_basic, with a 401 Basic challenge', async () => {
      const config = await connect(
        INTERFACE_REALM,
        'post-client',
        oidc.ClientSecretBasic(SECRETS.post),
      );
      await expectBasicChallenge(oidc.clientCredentialsGrant(config));
    });
  });

  describe.each(INTROSPECTION_REALMS)(
    'introspection and revocation (inactive status $inactiveStatus)',
    ({ realm, expectInactive }) => {
      it("shows the resource's own client (client_secret_basic) every field of an active token", async () => {
        const token = await tokenForApi(realm);
        const claims = decodeJwt(token);

        const introspection = await oidc.tokenIntrospection(await asApi(realm), token);

        expect(introspection).toEqual({
          active: true,
          iss: gatehouse.issuer(realm),
          sub: 'post-client',
          client_id: 'post-client',
          resource: API_RESOURCE,
          aud: API_RESOURCE,
          scope: 'api:read',
          token_type: 'Bearer',
          jti: claims.jti,
          iat: claims.iat,
          nbf: claims.nbf,
          exp: claims.exp,
        });
      });

      it('shows another resource the token as inactive', async () => {
        const token = await tokenForApi(realm);
        await expectInactive(oidc.tokenIntrospection(await asOtherApi(realm), token));
      });

      it('shows an unknown token as inactive', async () => {
        await expectInactive(
          oidc.tokenIntrospection(await asApi(realm), 'not-a-token-gatehouse-issued'),
        );
      });

      it('makes a token revoked by its client inactive', async () => {
        const token = await tokenForApi(realm);
        const api = await asApi(realm);
        expect(await oidc.tokenIntrospection(api, token)).toMatchObject({ active: true });

        await oidc.tokenRevocation(await asPostClient(realm), token);

        await expectInactive(oidc.tokenIntrospection(api, token));
      });

      it('answers 200 to a client revoking a token it does not own, and leaves the token active', async () => {
        const token = await tokenForApi(realm);
        const stranger = await connect(
          realm,
          'basic-client',
          oidc.ClientSecretBasic(SECRETS.basic),
        );

        await expect(oidc.tokenRevocation(stranger, token)).resolves.toBeUndefined();

        expect(await oidc.tokenIntrospection(await asApi(realm), token)).toMatchObject({
          active: true,
        });
      });

      it('refuses revocation with a wrong secret', async () => {
        const token = await tokenForApi(realm);
        const config = await connect(
          realm,
          'post-client',
          oidc.ClientSecretPost(`${SECRETS.post}x`),
        );
        await expectOAuthError(oidc.tokenRevocation(config, token), {
          status: 400,
          error: 'invalid_client',
        });
      });
    },
  );
});
