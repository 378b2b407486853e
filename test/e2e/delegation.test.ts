import { createResourceServer } from '@gatehouse-oidc/resource-server';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESSES } from '../adapters/harnesses.js';
import { API_RESOURCE, clientKeyPair, OTHER_RESOURCE, testRealm } from '../support/fixtures.js';
import { JWT_BEARER, TestIdp } from '../support/id-jag-idp.js';
import { type RunningGatehouse, startGatehouse } from './gatehouse-server.js';

/**
 * Enterprise-managed authorization end to end: a test identity provider mints an ID-JAG with jose
 * and serves its keys from a loopback port (the realm's trusted issuer fetches them there);
 * openid-client v6 presents it at a Gatehouse realm mounted in each binding (jwt-bearer), then
 * exchanges the token for one meant for another API (token exchange, `genericGrantRequest`);
 * APIs protected by the resource-server kit accept both tokens.
 */

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const AGENT_SECRET = 'agent-secret-0123456789abcdef';

let idp: TestIdp;
let jwksUri: string;
beforeAll(async () => {
  idp = await TestIdp.create();
  jwksUri = await idp.serve();
});
afterAll(() => idp.close());

describe.each(HARNESSES)('ID-JAG and token exchange through $name', (harness) => {
  let gatehouse: RunningGatehouse;
  beforeAll(async () => {
    const realm = testRealm(await clientKeyPair(), {
      trusted_issuers: [{ issuer: idp.issuer, jwks_uri: jwksUri, profile: 'id-jag' }],
    });
    realm.clients = [
      ...(realm.clients ?? []),
      {
        client_id: 'agent',
        client_secret: AGENT_SECRET,
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: [JWT_BEARER, TOKEN_EXCHANGE],
        scope: 'api:read other:read',
        token_exchange: { resources: [OTHER_RESOURCE] },
      },
    ];
    gatehouse = await startGatehouse(harness, [realm], {
      accounts: {
        findAccount: async (_realm, sub) => (sub === 'alice' ? { sub, claims: {} } : undefined),
      },
    });
  });
  afterAll(() => gatehouse?.close());

  const api = (resource: string, scope: string) =>
    createResourceServer({
      resource,
      issuer: gatehouse.issuer('test'),
      scopes: [scope],
      fetch: (input, init) => gatehouse.fetch(String(input), init ?? {}),
    });

  it('an ID-JAG becomes a token the API accepts, which is exchanged for one the other API accepts', async () => {
    const agent = await oidc.discovery(
      new URL(gatehouse.issuer('test')),
      'agent',
      undefined,
      oidc.ClientSecretPost(AGENT_SECRET),
      { [oidc.customFetch]: gatehouse.fetch },
    );
    expect(agent.serverMetadata().grant_types_supported).toEqual(
      expect.arrayContaining([JWT_BEARER, TOKEN_EXCHANGE]),
    );
    expect(agent.serverMetadata().authorization_grant_profiles_supported).toEqual([
      'urn:ietf:params:oauth:grant-type:id-jag',
    ]);

    const assertion = await idp.mint({
      sub: 'alice',
      aud: gatehouse.issuer('test'),
      client_id: 'agent',
      resource: API_RESOURCE,
      scope: 'api:read other:read',
    });
    const granted = await oidc.genericGrantRequest(agent, JWT_BEARER, { assertion });
    expect(granted).toMatchObject({ token_type: 'bearer', scope: 'api:read other:read' });
    const atApi = await api(API_RESOURCE, 'api:read').verify(
      new Request(`${API_RESOURCE}/things`, {
        headers: { authorization: `Bearer ${granted.access_token}` },
      }),
    );
    expect(atApi).toMatchObject({
      ok: true,
      token: { claims: { sub: 'alice', client_id: 'agent' } },
    });

    const exchanged = await oidc.genericGrantRequest(agent, TOKEN_EXCHANGE, {
      subject_token: granted.access_token,
      subject_token_type: ACCESS_TOKEN_TYPE,
      resource: OTHER_RESOURCE,
    });
    expect(exchanged).toMatchObject({
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'bearer',
      scope: 'other:read',
    });
    expect(exchanged).not.toHaveProperty('refresh_token');
    const atOther = await api(OTHER_RESOURCE, 'other:read').verify(
      new Request(`${OTHER_RESOURCE}/reports`, {
        headers: { authorization: `Bearer ${exchanged.access_token}` },
      }),
    );
    expect(atOther).toMatchObject({
      ok: true,
      token: { claims: { sub: 'alice', aud: OTHER_RESOURCE } },
    });
    // The token meant for the first API is not the other API's.
    const crossed = await api(OTHER_RESOURCE, 'other:read').verify(
      new Request(`${OTHER_RESOURCE}/reports`, {
        headers: { authorization: `Bearer ${granted.access_token}` },
      }),
    );
    expect(crossed.ok).toBe(false);

    await expect(oidc.genericGrantRequest(agent, JWT_BEARER, { assertion })).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});
