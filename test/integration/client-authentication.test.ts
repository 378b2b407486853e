import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuthError } from '@gatehouse-oidc/core';
import {
  type CryptoKey,
  exportJWK,
  exportSPKI,
  importJWK,
  importPKCS8,
  type JWK,
  SignJWT,
  UnsecuredJWT,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKeyPair, SECRETS, testRealm } from '../support/fixtures.js';
import {
  basicAuthorization,
  type Credentials,
  createHarness,
  endpointPath,
  expectOAuthError,
  type Harness,
  INTROSPECT,
  JSON_TYPE,
  JWT_BEARER,
  NO_STORE,
  REVOKE,
  type TestResponse,
  TOKEN,
} from './harness.js';

const CLIENT_CREDENTIALS = { grant_type: 'client_credentials' } as const;
const jwtSecret = new TextEncoder().encode(SECRETS.jwt);
const BASIC_CHALLENGE = 'Basic realm="gatehouse", charset="UTF-8"';

/** A client_id and secret that need form-urlencoding inside a Basic header (RFC 6749 §2.3.1). */
const ODD_ID = 'svc:reports%1';
const ODD_SECRET = 'p@ss word+:/%é-0123456789';

let h: Harness;
let extraKeys: {
  rs256: Awaited<ReturnType<typeof clientKeyPair>>;
  eddsa: Awaited<ReturnType<typeof clientKeyPair>>;
};
/** The second realm registers the same client_ids with different secrets. */
const SECOND_POST_SECRET = 'second-post-secret-0123456789';

beforeAll(async () => {
  extraKeys = { rs256: await clientKeyPair('RS256'), eddsa: await clientKeyPair('EdDSA') };
  const secondKeys = await clientKeyPair();
  const second = testRealm(secondKeys, { name: 'second' });
  h = await createHarness({
    extraClients: [
      {
        client_id: ODD_ID,
        client_secret: ODD_SECRET,
        token_endpoint_auth_method: 'client_secret_basic',
        grant_types: ['client_credentials'],
        scope: 'api:read',
      },
      ...['svc', 'svc/batch'].map((client_id) => ({
        client_id,
        client_secret: SECRETS.jwt,
        token_endpoint_auth_method: 'client_secret_jwt' as const,
        grant_types: ['client_credentials' as const],
        scope: 'api:read',
      })),
      ...['multi-key-client', 'pinned-key-client'].map((client_id) => ({
        client_id,
        token_endpoint_auth_method: 'private_key_jwt' as const,
        grant_types: ['client_credentials' as const],
        scope: 'api:read',
        jwks: { keys: [extraKeys.rs256.publicJwk, extraKeys.eddsa.publicJwk] as never },
        ...(client_id === 'pinned-key-client'
          ? { token_endpoint_auth_signing_alg: 'EdDSA' as const }
          : {}),
      })),
    ],
    otherRealms: [
      {
        ...second,
        clients: (second.clients ?? []).map((client) =>
          client.client_id === 'post-client'
            ? { ...client, client_secret: SECOND_POST_SECRET }
            : client,
        ),
      },
    ],
  });
});

/** Presents `secret` for `clientId` the way `method` sends it, whatever the client registered. */
async function presentAs(method: string, clientId: string, secret: string): Promise<Credentials> {
  switch (method) {
    case 'client_secret_post':
      return { fields: { client_id: clientId, client_secret: secret }, headers: {} };
    case 'client_secret_basic':
      return { fields: {}, headers: { authorization: basicAuthorization(clientId, secret) } };
    case 'client_secret_jwt': {
      const assertion = await h.assertion(new TextEncoder().encode(secret), 'HS256', {
        iss: clientId,
      });
      return {
        fields: { client_assertion: assertion, client_assertion_type: JWT_BEARER },
        headers: {},
      };
    }
    case 'none':
      return { fields: { client_id: clientId }, headers: {} };
    default:
      throw new Error(method);
  }
}

const tokenRequest = (credentials: Credentials, fields: Record<string, string> = {}) =>
  h.post(TOKEN, { ...CLIENT_CREDENTIALS, ...fields, ...credentials.fields }, credentials.headers);

const withAssertion = (assertion: string, fields: Record<string, string> = {}) =>
  h.post(TOKEN, {
    ...CLIENT_CREDENTIALS,
    client_assertion: assertion,
    client_assertion_type: JWT_BEARER,
    ...fields,
  });

/** Signs an arbitrary assertion payload, for the cases the fixture's builder cannot express. */
function rawAssertion(
  payload: Record<string, unknown>,
  key: CryptoKey | Uint8Array,
  alg: string,
): Promise<string> {
  return new SignJWT(payload).setProtectedHeader({ alg }).sign(key);
}

function expectInvalidClient(response: TestResponse): void {
  expectOAuthError(response, 400, 'invalid_client');
}

describe('each registered method authenticates at every endpoint', () => {
  const endpoints = [
    ['token', TOKEN],
    ['introspection', INTROSPECT],
    ['revocation', REVOKE],
  ] as const;
  const clients = ['post-client', 'basic-client', 'jwt-client', 'key-client'] as const;

  it.each(
    endpoints.flatMap(([name, path]) => clients.map((client) => [name, path, client] as const)),
  )('%s endpoint, %s', async (name, path, clientId) => {
    const token = await h.issueToken(clientId);
    const response = await h.postAs(
      clientId,
      path,
      name === 'token' ? CLIENT_CREDENTIALS : { token },
    );
    expect(response.status).toBe(200);
    if (name === 'introspection')
      expect(response.json()).toMatchObject({ active: true, client_id: clientId });
  });

  it('none: the native client authenticates with its client_id only', async () => {
    const token = await h.issueToken();
    // Authenticated but not allowed the grant: unauthorized_client, not invalid_client.
    expectOAuthError(
      await h.postAs('native-client', TOKEN, CLIENT_CREDENTIALS),
      400,
      'unauthorized_client',
    );
    // RFC 7662 §2.1: introspection needs a caller that proves who it is.
    expectInvalidClient(await h.postAs('native-client', INTROSPECT, { token }));
    expect((await h.postAs('native-client', REVOKE, { token })).status).toBe(200);
  });

  it('client_secret_basic form-urlencodes client_id and secret before base64', async () => {
    const response = await tokenRequest(await presentAs('client_secret_basic', ODD_ID, ODD_SECRET));
    expect(response.status).toBe(200);
    expect(response.json().scope).toBe('api:read');
    const unencoded = `Basic ${Buffer.from(`${ODD_ID}:${ODD_SECRET}`).toString('base64')}`;
    expect((await h.post(TOKEN, CLIENT_CREDENTIALS, { authorization: unencoded })).status).toBe(
      401,
    );
  });

  it('a client_id parameter naming the same client may accompany Basic', async () => {
    const credentials = await h.credentialsOf('basic-client');
    expect((await tokenRequest(credentials, { client_id: 'basic-client' })).status).toBe(200);
  });

  it.each([
    ['RS256', 'rs256'],
    ['EdDSA', 'eddsa'],
  ] as const)('private_key_jwt with an %s key', async (alg, which) => {
    const assertion = await h.assertion(extraKeys[which].privateKey, alg, {
      iss: 'multi-key-client',
    });
    expect((await withAssertion(assertion)).status).toBe(200);
  });
});

describe('only the registered method is accepted', () => {
  it.each([
    ['post-client', 'client_secret_basic', SECRETS.post, 401],
    ['post-client', 'client_secret_jwt', SECRETS.post.repeat(2), 400],
    ['post-client', 'none', '', 400],
    ['basic-client', 'client_secret_post', SECRETS.basic, 400],
    ['basic-client', 'none', '', 400],
    ['jwt-client', 'client_secret_post', SECRETS.jwt, 400],
    ['jwt-client', 'client_secret_basic', SECRETS.jwt, 401],
    ['key-client', 'none', '', 400],
    ['native-client', 'client_secret_post', SECRETS.post, 400],
  ])('%s presenting %s → invalid_client', async (clientId, method, secret, status) => {
    const response = await tokenRequest(await presentAs(method, clientId, secret));
    expectOAuthError(response, status, 'invalid_client');
  });

  it('a private_key_jwt client cannot authenticate with an HMAC assertion', async () => {
    const assertion = await h.assertion(jwtSecret, 'HS256', { iss: 'key-client' });
    expectInvalidClient(await withAssertion(assertion));
  });
});

describe('failures look the same whatever went wrong', () => {
  it.each([
    ['client_secret_post', 'post-client', SECRETS.post],
    ['client_secret_basic', 'basic-client', SECRETS.basic],
    ['client_secret_jwt', 'jwt-client', SECRETS.jwt],
  ])(
    '%s: unknown client and wrong secret give byte-identical answers',
    async (method, clientId, secret) => {
      const wrongSecret = await tokenRequest(await presentAs(method, clientId, `${secret}x`));
      const unknownClient = await tokenRequest(await presentAs(method, 'no-such-client', secret));
      expect(wrongSecret.status).toBe(method === 'client_secret_basic' ? 401 : 400);
      expect(wrongSecret.json().error).toBe('invalid_client');
      const { json: _a, ...wrong } = wrongSecret;
      const { json: _b, ...unknown } = unknownClient;
      expect(unknown).toEqual(wrong);
    },
  );

  it.each([
    ['token', TOKEN, CLIENT_CREDENTIALS],
    ['introspection', INTROSPECT, { token: 'x' }],
    ['revocation', REVOKE, { token: 'x' }],
  ])(
    'a failed Basic authentication at the %s endpoint is 401 with a Basic challenge',
    async (_, path, fields) => {
      const response = await h.post(path, fields, {
        authorization: basicAuthorization('basic-client', 'wrong'),
      });
      expectOAuthError(response, 401, 'invalid_client');
      expect(response.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
    },
  );

  it('a failed non-Basic authentication carries no challenge', async () => {
    const response = await tokenRequest(
      await presentAs('client_secret_post', 'post-client', 'wrong'),
    );
    expectInvalidClient(response);
    expect(response.headers['www-authenticate']).toBeUndefined();
  });

  const b64 = (text: string) => Buffer.from(text).toString('base64');
  it.each([
    ['no credentials', 'Basic'],
    ['not base64', 'Basic !!!!'],
    ['no colon', `Basic ${b64('basic-client')}`],
    ['empty client_id', `Basic ${b64(`:${SECRETS.basic}`)}`],
    ['broken percent-encoding', `Basic ${b64(`basic-client:%E0%A4%A`)}`],
    ['not UTF-8', `Basic ${Buffer.from([0x62, 0xff, 0x3a, 0x78]).toString('base64')}`],
  ])('malformed Basic header (%s) → 401', async (_, authorization) => {
    const response = await h.post(TOKEN, CLIENT_CREDENTIALS, { authorization });
    expectOAuthError(response, 401, 'invalid_client');
    expect(response.headers['www-authenticate']).toBe(BASIC_CHALLENGE);
  });

  it('a request with no client credentials at all is invalid_client', async () => {
    expectInvalidClient(await h.post(TOKEN, CLIENT_CREDENTIALS));
  });
});

describe('malformed client authentication', () => {
  it('two methods at once → invalid_request', async () => {
    const basic = await h.credentialsOf('basic-client');
    const assertion = await h.credentialsOf('jwt-client');
    const post = await h.credentialsOf('post-client');
    const combinations: Credentials[] = [
      { fields: { client_secret: SECRETS.basic }, headers: basic.headers },
      { fields: assertion.fields, headers: basic.headers },
      { fields: { ...post.fields, ...assertion.fields }, headers: {} },
    ];
    for (const credentials of combinations) {
      expectOAuthError(await tokenRequest(credentials), 400, 'invalid_request');
    }
  });

  it('a client_id disagreeing with the Basic user → invalid_client', async () => {
    const response = await tokenRequest(await h.credentialsOf('basic-client'), {
      client_id: 'post-client',
    });
    expectOAuthError(response, 401, 'invalid_client');
  });

  it('a client_id disagreeing with the assertion subject → invalid_client', async () => {
    const assertion = await h.assertion(h.keys.privateKey, 'ES256', { iss: 'key-client' });
    expectInvalidClient(await withAssertion(assertion, { client_id: 'jwt-client' }));
  });

  it.each([
    [
      'wrong client_assertion_type',
      { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer' },
    ],
    ['missing client_assertion_type', { client_assertion_type: '' }],
  ])('%s → invalid_request', async (_, override) => {
    const assertion = await h.assertion(jwtSecret, 'HS256', { iss: 'jwt-client' });
    expectOAuthError(await withAssertion(assertion, override), 400, 'invalid_request');
  });

  it('client_assertion_type without client_assertion → invalid_request', async () => {
    const response = await h.post(TOKEN, {
      ...CLIENT_CREDENTIALS,
      client_id: 'jwt-client',
      client_assertion_type: JWT_BEARER,
    });
    expectOAuthError(response, 400, 'invalid_request');
  });

  it('a client_assertion that is not a JWT → invalid_client', async () => {
    expectInvalidClient(await withAssertion('not-a-jwt'));
  });
});

describe('client assertion claims (RFC 7523 §3)', () => {
  it.each([
    ['the issuer', () => h.issuer()],
    ['the token endpoint URL', () => `${h.issuer()}/token`],
  ])('aud = %s is accepted', async (_, aud) => {
    const assertion = await h.assertion(jwtSecret, 'HS256', { iss: 'jwt-client', aud: aud() });
    expect((await withAssertion(assertion)).status).toBe(200);
  });

  it('aud as an array is refused, even when it names the issuer (draft-ietf-oauth-rfc7523bis)', async () => {
    const assertion = await h.assertion(jwtSecret, 'HS256', {
      iss: 'jwt-client',
      aud: [h.issuer()],
    });
    expectInvalidClient(await withAssertion(assertion));
  });

  it.each([
    ['introspection', INTROSPECT, 'introspect', 400, '{"active":false}'],
    ['revocation', REVOKE, 'revoke', 200, undefined],
    // Many client libraries put the token endpoint in aud whatever endpoint they call.
    ['token', INTROSPECT, 'token', 400, '{"active":false}'],
    ['token', REVOKE, 'token', 200, undefined],
  ])('aud = the %s endpoint URL is accepted at %s', async (_, path, endpoint, status, body) => {
    const assertion = await h.assertion(jwtSecret, 'HS256', {
      iss: 'jwt-client',
      aud: `${h.issuer()}/${endpoint}`,
    });
    const response = await h.post(path, {
      token: 'unknown',
      client_assertion: assertion,
      client_assertion_type: JWT_BEARER,
    });
    expect([response.status, response.body]).toEqual([status, body]);
  });

  it.each([
    ["another realm's issuer", () => h.issuer('second')],
    ['an unrelated audience', () => 'https://elsewhere.example.com'],
    ['the issuer with a trailing slash', () => `${h.issuer()}/`],
  ])('aud = %s is refused', async (_, aud) => {
    const assertion = await h.assertion(jwtSecret, 'HS256', { iss: 'jwt-client', aud: aud() });
    expectInvalidClient(await withAssertion(assertion));
  });

  it('iss different from sub is refused', async () => {
    const assertion = await h.assertion(jwtSecret, 'HS256', {
      iss: 'post-client',
      sub: 'jwt-client',
    });
    expectInvalidClient(await withAssertion(assertion));
  });

  it.each(['exp', 'jti'] as const)('a missing %s is refused', async (missing) => {
    const now = h.nowSeconds();
    const complete = {
      iss: 'jwt-client',
      sub: 'jwt-client',
      aud: h.issuer(),
      iat: now,
      exp: now + 60,
      jti: crypto.randomUUID(),
    };
    const { [missing]: _, ...incomplete } = complete;
    expectInvalidClient(await withAssertion(await rawAssertion(incomplete, jwtSecret, 'HS256')));
    // The complete payload passes, so it was the missing claim that mattered.
    expect((await withAssertion(await rawAssertion(complete, jwtSecret, 'HS256'))).status).toBe(
      200,
    );
  });

  it('exp at most 300 seconds ahead is accepted, 301 is refused', async () => {
    const now = h.nowSeconds();
    const at = (exp: number) => h.assertion(jwtSecret, 'HS256', { iss: 'jwt-client', exp });
    expectInvalidClient(await withAssertion(await at(now + 301)));
    expect((await withAssertion(await at(now + 300))).status).toBe(200);
  });

  it('an expired assertion is refused', async () => {
    const assertion = await h.assertion(jwtSecret, 'HS256', {
      iss: 'jwt-client',
      exp: h.nowSeconds() + 60,
    });
    h.clock.advance(91); // past exp plus the 30 s clock tolerance
    expectInvalidClient(await withAssertion(assertion));
  });

  it('a jti is accepted once, and remembered until the assertion can no longer be used', async () => {
    const exp = h.nowSeconds() + 60;
    const assertion = await h.assertion(jwtSecret, 'HS256', { iss: 'jwt-client', exp });
    expect((await withAssertion(assertion)).status).toBe(200);
    const remembered = h.store.writesTo('assertion_jti').at(-1);
    if (!remembered) throw new Error('the jti was not recorded');

    expectInvalidClient(await withAssertion(assertion));
    h.clock.advance(exp - h.nowSeconds() + 29); // still inside the clock tolerance
    expectInvalidClient(await withAssertion(assertion));
    expect(await h.store.get(remembered.namespace, remembered.id)).toBeDefined();

    h.clock.advance(2); // past exp + tolerance: the assertion is dead, so its jti may go
    expect(await h.store.get(remembered.namespace, remembered.id)).toBeUndefined();
    expectInvalidClient(await withAssertion(assertion));
  });

  it('jtis of clients whose ids share a prefix up to a "/" do not collide', async () => {
    const first = await h.assertion(jwtSecret, 'HS256', { iss: 'svc', jti: 'batch/42' });
    const second = await h.assertion(jwtSecret, 'HS256', { iss: 'svc/batch', jti: '42' });
    expect((await withAssertion(first)).status).toBe(200);
    expect((await withAssertion(second)).status).toBe(200);
  });

  it('the same jti from two clients does not collide', async () => {
    const jti = crypto.randomUUID();
    const fromJwt = await h.assertion(jwtSecret, 'HS256', { iss: 'jwt-client', jti });
    const fromKey = await h.assertion(h.keys.privateKey, 'ES256', { iss: 'key-client', jti });
    expect((await withAssertion(fromJwt)).status).toBe(200);
    expect((await withAssertion(fromKey)).status).toBe(200);
  });
});

describe('assertion signatures', () => {
  it('alg "none" is refused', async () => {
    const now = h.nowSeconds();
    const unsigned = new UnsecuredJWT({ jti: crypto.randomUUID() })
      .setIssuer('key-client')
      .setSubject('key-client')
      .setAudience(h.issuer())
      .setIssuedAt(now)
      .setExpirationTime(now + 60)
      .encode();
    expectInvalidClient(await withAssertion(unsigned));
  });

  it("HS256 keyed with the private_key_jwt client's public key is refused (algorithm confusion)", async () => {
    const publicKey = await importJWK(h.keys.publicJwk, 'ES256', { extractable: true });
    const encodings = [await exportSPKI(publicKey as CryptoKey), JSON.stringify(h.keys.publicJwk)];
    for (const encoded of encodings) {
      const assertion = await h.assertion(new TextEncoder().encode(encoded), 'HS256', {
        iss: 'key-client',
      });
      expectInvalidClient(await withAssertion(assertion));
    }
  });

  it('a client_secret_jwt client cannot sign with a key pair', async () => {
    const assertion = await h.assertion(h.keys.privateKey, 'ES256', { iss: 'jwt-client' });
    expectInvalidClient(await withAssertion(assertion));
  });

  it('the pinned token_endpoint_auth_signing_alg is enforced', async () => {
    const rs256 = await h.assertion(extraKeys.rs256.privateKey, 'RS256', {
      iss: 'pinned-key-client',
    });
    const eddsa = await h.assertion(extraKeys.eddsa.privateKey, 'EdDSA', {
      iss: 'pinned-key-client',
    });
    expectInvalidClient(await withAssertion(rs256));
    expect((await withAssertion(eddsa)).status).toBe(200);
  });

  it('a client of one realm never authenticates in another', async () => {
    const inSecond = (secret: string) =>
      h.post(endpointPath('token', 'second'), {
        ...CLIENT_CREDENTIALS,
        client_id: 'post-client',
        client_secret: secret,
      });
    expectInvalidClient(await inSecond(SECRETS.post));
    expect((await inSecond(SECOND_POST_SECRET)).status).toBe(200);
    const firstRealmSecretHere = await tokenRequest(
      await presentAs('client_secret_post', 'post-client', SECOND_POST_SECRET),
    );
    expectInvalidClient(firstRealmSecretHere);
  });

  it('a key registered for a client in one realm does not authenticate its namesake in another', async () => {
    const assertion = await h.assertion(h.keys.privateKey, 'ES256', {
      iss: 'key-client',
      aud: h.issuer('second'),
    });
    const response = await h.post(endpointPath('token', 'second'), {
      ...CLIENT_CREDENTIALS,
      client_assertion: assertion,
      client_assertion_type: JWT_BEARER,
    });
    expectInvalidClient(response);
  });
});

/** An attacker's self-signed certificate and key, deliberately public: test material only. */
const ATTACKER_PKCS8 = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgIZPSey9S7vGT/+WU
RfId9APBRwhXPrlsPSUCELFc66+hRANCAATMhPYhhlpFWP+jqFxdJtaT6USs5Dta
NNnyxE3EYbrN7tpq0XVdasglTR0if4Sgrcz9Nga5b9XO+CUNGyPgXDtO
-----END PRIVATE KEY-----`;
const ATTACKER_CERTIFICATE =
  'MIIBjTCCATOgAwIBAgIUdLXtfNmqX5c64UmVQw2ubOO4gLowCgYIKoZIzj0EAwIwGzEZMBcGA1UEAwwQYXR0YWNrZXIuZXhhbXBsZTAgFw0yNjExMjEyMDA4MDVaGA8yMTI2MTAyODIwMDgwNVowGzEZMBcGA1UEAwwQYXR0YWNrZXIuZXhhbXBsZTBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABMyE9iGGWkVY/6OoXF0m1pPpRKzkO1o02fLETcRhus3u2mrRdV1qyCVNHSJ/hKCtzP02Brlv1c74JQ0bI+BcO06jUzBRMB0GA1UdDgQWBBRUhxFB6D6L/KhRitG5jhIThFVAfTAfBgNVHSMEGDAWgBRUhxFB6D6L/KhRitG5jhIThFVAfTAPBgNVHRMBAf8EBTADAQH/MAoGCCqGSM49BAMCA0gAMEUCIQDOt4xBI4mli1iaHAIF1QljqYS6w2MR4TGu3YTX7SCPmQIgd/FaioaoUFuJX7bJnOsbA4Qbz4SkE+9PYz9gqBHfLYU=';

describe('keys carried in the assertion header are ignored', () => {
  let attackerKey: CryptoKey;
  let attackerJwk: JWK;
  let keyServer: Server;
  let keyServerUrl: string;
  let keyServerHits = 0;

  beforeAll(async () => {
    attackerKey = await importPKCS8(ATTACKER_PKCS8, 'ES256', { extractable: true });
    const { d: _private, ...publicJwk } = await exportJWK(attackerKey);
    attackerJwk = publicJwk;
    keyServer = createServer((_, response) => {
      keyServerHits++;
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ keys: [attackerJwk] }));
    });
    await new Promise<void>((resolve) => keyServer.listen(0, '127.0.0.1', resolve));
    keyServerUrl = `http://127.0.0.1:${(keyServer.address() as AddressInfo).port}/jwks`;
  });

  afterAll(async () => {
    await new Promise((resolve) => keyServer.close(resolve));
  });

  it.each([
    ['jwk', () => ({ jwk: attackerJwk })],
    ['jku', () => ({ jku: keyServerUrl })],
    ['x5u', () => ({ x5u: keyServerUrl })],
    ['x5c', () => ({ x5c: [ATTACKER_CERTIFICATE] })],
  ])('header %s naming the signing key does not make it trusted', async (_, header) => {
    const assertion = await h.assertion(attackerKey, 'ES256', { iss: 'key-client' }, header());
    expectInvalidClient(await withAssertion(assertion));
    expect(keyServerHits).toBe(0);
  });

  it('a header jwk does not stop the registered key from verifying', async () => {
    const assertion = await h.assertion(
      h.keys.privateKey,
      'ES256',
      { iss: 'key-client' },
      { jwk: attackerJwk },
    );
    expect((await withAssertion(assertion)).status).toBe(200);
  });
});

describe('replay under concurrency', () => {
  it('50 concurrent uses of one assertion: exactly one succeeds', async () => {
    const assertion = await h.assertion(h.keys.privateKey, 'ES256', { iss: 'key-client' });
    const responses = await Promise.all(Array.from({ length: 50 }, () => withAssertion(assertion)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 400)).toHaveLength(49);
    for (const response of responses.filter((r) => r.status === 400)) {
      expect(response.json().error).toBe('invalid_client');
      expect(response.headers).toMatchObject({ 'content-type': JSON_TYPE, ...NO_STORE });
    }
  });
});

describe('a client whose registered key cannot be used', () => {
  it('fails to authenticate with invalid_client, and the cause reaches onError', async () => {
    const reported: unknown[] = [];
    // Well-formed members, but (0, 0) is not a point on P-256: WebCrypto refuses to import it.
    const offCurve = { kty: 'EC', crv: 'P-256', x: 'A'.repeat(43), y: 'A'.repeat(43), kid: 'bad' };
    const broken = await createHarness({
      onError: (error) => reported.push(error),
      extraClients: [
        {
          client_id: 'broken-key-client',
          token_endpoint_auth_method: 'private_key_jwt',
          grant_types: ['client_credentials'],
          scope: 'api:read',
          jwks: { keys: [offCurve as never] },
        },
      ],
    });
    const signer = await clientKeyPair('ES256', 'bad');
    const assertion = await broken.assertion(
      signer.privateKey,
      'ES256',
      {
        iss: 'broken-key-client',
      },
      { kid: 'bad' },
    );
    const response = await broken.post(TOKEN, {
      ...CLIENT_CREDENTIALS,
      client_assertion: assertion,
      client_assertion_type: JWT_BEARER,
    });
    expectOAuthError(response, 400, 'invalid_client');
    expect(reported).toHaveLength(1);
    expect(reported[0]).not.toBeInstanceOf(OAuthError);
  });
});
