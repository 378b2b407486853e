import type { ClientInput, GatehouseEvent } from '@gatehouse-oidc/core';
import { decodeJwt, exportJWK, generateKeyPair, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { API_RESOURCE, OTHER_RESOURCE } from '../support/fixtures.js';
import { type AssertionClaims, JWT_BEARER, TestIdp } from '../support/id-jag-idp.js';
import { createHarness, endpointPath, expectOAuthError, type Harness, TOKEN } from './harness.js';
import { expectTokens } from './user-grants.js';

const AGENT_SECRET = 'agent-secret-0123456789abcdef';
const AGENT = {
  client_id: 'agent',
  client_secret: AGENT_SECRET,
  token_endpoint_auth_method: 'client_secret_post',
  grant_types: [JWT_BEARER],
  scope: 'api:read other:read',
} as const satisfies ClientInput;

let idp: TestIdp;
let workload: TestIdp;
let remoteIdp: TestIdp;
let remoteJwksUri: string;
let h: Harness;
let events: GatehouseEvent[];

beforeAll(async () => {
  idp = await TestIdp.create('https://idp.example.com');
  workload = await TestIdp.create('https://workload.example.com', 'workload-key');
  remoteIdp = await TestIdp.create('https://remote-idp.example.com', 'remote-key');
  remoteJwksUri = await remoteIdp.serve();
});
afterAll(() => remoteIdp.close());

beforeEach(async () => {
  events = [];
  h = await createHarness({
    extraClients: [AGENT],
    realm: {
      trusted_issuers: [
        { issuer: idp.issuer, jwks: idp.jwks as never, profile: 'id-jag' },
        { issuer: workload.issuer, jwks: workload.jwks as never, profile: 'assertion' },
        { issuer: remoteIdp.issuer, jwks_uri: remoteJwksUri, profile: 'id-jag' },
      ],
    },
    onEvent: (event) => {
      events.push(event);
    },
  });
});

/** A valid ID-JAG for alice, agent and the API, timed by the harness clock, with `claims` over it. */
const idJag = (claims: AssertionClaims = {}, options: Parameters<TestIdp['mint']>[1] = {}) =>
  idp.mint(
    {
      sub: 'alice',
      aud: h.issuer(),
      client_id: 'agent',
      resource: API_RESOURCE,
      scope: 'api:read api:write',
      ...claims,
    },
    { now: h.clock.now(), ...options },
  );

const asAgent = (assertion: string, fields: Record<string, string> = {}) =>
  h.post(TOKEN, {
    grant_type: JWT_BEARER,
    assertion,
    client_id: 'agent',
    client_secret: AGENT_SECRET,
    ...fields,
  });

describe('ID-JAG (Identity Assertion JWT Authorization Grant)', () => {
  it('is exchanged for a token of the subject, for the resource, with the scopes the client may have', async () => {
    const assertion = await idJag();
    const body = expectTokens(await asAgent(assertion));
    expect(body).toEqual({
      access_token: expect.any(String),
      token_type: 'Bearer',
      expires_in: 600,
      scope: 'api:read',
    });
    expect(decodeJwt(body.access_token as string)).toMatchObject({
      iss: h.issuer(),
      sub: 'alice',
      aud: API_RESOURCE,
      client_id: 'agent',
      scope: 'api:read',
    });
    expect((await h.introspect('api', body.access_token as string)).json()).toMatchObject({
      active: true,
      sub: 'alice',
    });
    expect(events.at(-1)).toMatchObject({
      type: 'token_issued',
      grantType: JWT_BEARER,
      clientId: 'agent',
      sub: 'alice',
      scopes: ['api:read'],
      tokens: ['access_token'],
    });
    const said = JSON.stringify(events);
    expect(said).not.toContain(assertion);
    expect(said).not.toContain(body.access_token);
  });

  it('`scope` narrows what the assertion grants; `resource` may repeat the assertion’s', async () => {
    const body = expectTokens(
      await asAgent(await idJag({ scope: 'api:read other:read', resource: OTHER_RESOURCE }), {
        scope: 'other:read',
        resource: OTHER_RESOURCE,
      }),
    );
    expect(body.scope).toBe('other:read');
  });

  it('keys from the issuer’s jwks_uri are fetched once and kept', async () => {
    for (let i = 0; i < 3; i += 1) {
      const assertion = await remoteIdp.mint(
        {
          sub: 'alice',
          aud: h.issuer(),
          client_id: 'agent',
          resource: API_RESOURCE,
          scope: 'api:read',
        },
        { now: h.clock.now() },
      );
      expectTokens(await asAgent(assertion));
    }
    expect(remoteIdp.jwksRequests).toBe(1);
  });

  const hmacKey = new TextEncoder().encode('a-shared-secret-0123456789abcdef');
  const otherKey = generateKeyPair('ES256', { extractable: true });

  it.each<[string, () => Promise<string>]>([
    ['a plain JWT typ', () => idJag({}, { header: { typ: 'JWT' } })],
    ['no typ', () => idJag({}, { header: { typ: undefined } })],
    ['the audience of another server', () => idJag({ aud: 'https://other-as.example.com' })],
    [
      'the token endpoint as audience (ID-JAG wants the issuer)',
      () => idJag({ aud: `${h.issuer()}/token` }),
    ],
    ['an untrusted issuer', () => idJag({ iss: 'https://evil.example.com' })],
    ['an expired one', () => idJag({ iat: h.nowSeconds() - 400, exp: h.nowSeconds() - 40 })],
    ['one not yet valid', () => idJag({ nbf: h.nowSeconds() + 120 })],
    ['one living longer than five minutes', () => idJag({ exp: h.nowSeconds() + 3600 })],
    ['another client’s', () => idJag({ client_id: 'post-client' })],
    ['a resource not of the realm', () => idJag({ resource: 'https://elsewhere.example.com' })],
    ['no resource', () => idJag({ resource: undefined })],
    ['a subject who is not an account of the realm', () => idJag({ sub: 'mallory' })],
    ['HMAC with a shared secret', () => idJag({}, { header: { alg: 'HS256' }, key: hmacKey })],
    [
      'alg none',
      async () =>
        new UnsecuredJWT({
          sub: 'alice',
          aud: h.issuer(),
          client_id: 'agent',
          resource: API_RESOURCE,
          jti: 'n',
          exp: h.nowSeconds() + 60,
        })
          .setIssuer(idp.issuer)
          .setIssuedAt(h.nowSeconds())
          .encode(),
    ],
    [
      'a kid the issuer does not publish',
      async () => idJag({}, { header: { kid: 'unknown' }, key: (await otherKey).privateKey }),
    ],
    ['the issuer’s kid, another key', async () => idJag({}, { key: (await otherKey).privateKey })],
    ['no JWT at all', async () => 'not-a-jwt'],
  ])('%s → invalid_grant', async (_, assertion) => {
    const presented = await assertion();
    const response = await asAgent(presented);
    expectOAuthError(response, 400, 'invalid_grant');
    expect(response.body).not.toContain(presented);
  });

  it('a replayed assertion → invalid_grant', async () => {
    const assertion = await idJag();
    expectTokens(await asAgent(assertion));
    const replayed = await asAgent(assertion);
    expectOAuthError(replayed, 400, 'invalid_grant');
    expect(replayed.json().error_description).toBe('assertion has already been used');
  });

  it('an assertion refused for its scope can still be used once it is right', async () => {
    const assertion = await idJag();
    expectOAuthError(await asAgent(assertion, { scope: 'api:write' }), 400, 'invalid_scope');
    expectTokens(await asAgent(assertion));
  });

  it.each<[string, AssertionClaims, Record<string, string>]>([
    ['scopes only beyond the client’s', { scope: 'api:write' }, {}],
    ['no scope at all', { scope: undefined }, {}],
    [
      'a requested scope beyond the assertion’s',
      { scope: 'api:read' },
      { scope: 'api:read other:read' },
    ],
  ])('%s → invalid_scope', async (_, claims, fields) => {
    expectOAuthError(await asAgent(await idJag(claims), fields), 400, 'invalid_scope');
  });

  it('a `resource` other than the assertion’s → invalid_target', async () => {
    const response = await asAgent(await idJag(), { resource: OTHER_RESOURCE });
    expectOAuthError(response, 400, 'invalid_target');
  });

  it('a client without the grant type → unauthorized_client', async () => {
    const response = await h.postAs('post-client', TOKEN, {
      grant_type: JWT_BEARER,
      assertion: await idJag({ client_id: 'post-client' }),
    });
    expectOAuthError(response, 400, 'unauthorized_client');
  });

  it('no assertion → invalid_request', async () => {
    expectOAuthError(await asAgent(''), 400, 'invalid_request');
  });
});

describe('plain RFC 7523 assertions (workload identity)', () => {
  const plain = (claims: AssertionClaims = {}) =>
    workload.mint(
      { sub: 'bob', aud: `${h.issuer()}/token`, ...claims },
      { now: h.clock.now(), header: { typ: 'JWT' } },
    );

  it('`sub` is the subject; scope and resource come from the request', async () => {
    const body = expectTokens(
      await asAgent(await plain(), { scope: 'api:read', resource: API_RESOURCE }),
    );
    expect(decodeJwt(body.access_token as string)).toMatchObject({ sub: 'bob', aud: API_RESOURCE });
  });

  it('the issuer as audience works too; a replay does not', async () => {
    const assertion = await plain({ aud: h.issuer() });
    expectTokens(await asAgent(assertion, { scope: 'api:read' }));
    expectOAuthError(await asAgent(assertion, { scope: 'api:read' }), 400, 'invalid_grant');
  });

  it.each<[string, AssertionClaims]>([
    ['another audience', { aud: 'https://other-as.example.com' }],
    ['no jti', { jti: undefined }],
  ])('%s → invalid_grant', async (_, claims) => {
    expectOAuthError(
      await asAgent(await plain(claims), { scope: 'api:read' }),
      400,
      'invalid_grant',
    );
  });

  it('a scope the client lacks → invalid_scope', async () => {
    expectOAuthError(await asAgent(await plain(), { scope: 'api:write' }), 400, 'invalid_scope');
  });
});

describe('discovery and configuration', () => {
  it('lists the grant types and the ID-JAG profile', async () => {
    const metadata = (await h.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata.grant_types_supported).toEqual(
      expect.arrayContaining([JWT_BEARER, 'urn:ietf:params:oauth:grant-type:token-exchange']),
    );
    expect(metadata.authorization_grant_profiles_supported).toEqual([
      'urn:ietf:params:oauth:grant-type:id-jag',
    ]);
  });

  it('a realm without trusted issuers lists neither', async () => {
    const plainRealm = await createHarness();
    const metadata = (
      await plainRealm.get(endpointPath('.well-known/openid-configuration'))
    ).json();
    expect(metadata.grant_types_supported).not.toContain(JWT_BEARER);
    expect(metadata).not.toHaveProperty('authorization_grant_profiles_supported');
  });

  it('a realm with only plain assertions lists the grant type, not the profile', async () => {
    const realm = await createHarness({
      realm: {
        trusted_issuers: [
          { issuer: workload.issuer, jwks: workload.jwks as never, profile: 'assertion' },
        ],
      },
    });
    const metadata = (await realm.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata.grant_types_supported).toContain(JWT_BEARER);
    expect(metadata).not.toHaveProperty('authorization_grant_profiles_supported');
  });

  it.each([
    [
      'the grant without trusted issuers',
      {},
      { extraClients: [AGENT] },
      "needs the realm's trusted_issuers",
    ],
    [
      'an issuer with both jwks and jwks_uri',
      { jwks_uri: 'https://idp.example.com/jwks' },
      {},
      'exactly one of jwks_uri and jwks',
    ],
    ['an issuer twice', 'twice', {}, 'duplicate issuer'],
  ])('%s is refused at start', async (_, extra, options, message) => {
    const trusted = { issuer: idp.issuer, jwks: idp.jwks as never, profile: 'id-jag' as const };
    const trusted_issuers =
      extra === 'twice'
        ? [trusted, trusted]
        : Object.keys(extra).length
          ? [{ ...trusted, ...(extra as object) }]
          : [];
    await expect(createHarness({ ...options, realm: { trusted_issuers } })).rejects.toThrow(
      message,
    );
  });

  it('an HMAC algorithm cannot be pinned for an issuer', async () => {
    const jwk = await exportJWK((await generateKeyPair('ES256')).publicKey);
    await expect(
      createHarness({
        realm: {
          trusted_issuers: [
            {
              issuer: idp.issuer,
              jwks: { keys: [jwk as never] },
              profile: 'id-jag',
              signing_algs: ['HS256' as never],
            },
          ],
        },
      }),
    ).rejects.toThrow('signing_algs');
  });
});
