import { gatehouse } from '@gatehouse-oidc/hono';
import {
  createResourceServer,
  type ResourceServerOptions,
  type Verdict,
} from '@gatehouse-oidc/resource-server';
import { describe, expect, it } from 'vitest';
import { dpopKey } from '../support/dpop.js';
import { API_RESOURCE, OTHER_RESOURCE, SECRETS } from '../support/fixtures.js';
import { createHarness, type Harness, REVOKE, TOKEN } from './harness.js';

/**
 * The resource-server kit against a Gatehouse provider in process: it reads the realm's metadata
 * and keys, and introspects, through the Hono binding's fetch; tokens come from the token
 * endpoint. API_RESOURCE's own client `api` introspects.
 */

/** A second realm with a client of its own, issuing tokens for the same resource. */
const OTHER_REALM = {
  name: 'other',
  scopes: ['openid', 'api:read'],
  resources: [{ uri: API_RESOURCE, client_id: 'other-rs', scopes: ['api:read'] }],
  clients: [
    {
      client_id: 'stranger',
      client_secret: 'stranger-secret-0123456789abcdef',
      token_endpoint_auth_method: 'client_secret_post' as const,
      grant_types: ['client_credentials' as const],
      scope: 'api:read',
    },
    {
      client_id: 'other-rs',
      client_secret: 'other-rs-secret-0123456789abcdef',
      grant_types: [],
      scope: 'openid',
    },
  ],
};

function resourceServer(h: Harness, options: Partial<ResourceServerOptions> = {}) {
  const app = gatehouse(h.provider);
  const errors: unknown[] = [];
  const server = createResourceServer({
    resource: API_RESOURCE,
    issuer: h.issuer(),
    scopes: ['api:read'],
    fetch: async (input, init) => app.fetch(new Request(input, init)),
    now: h.clock.now,
    onError: (error) => errors.push(error),
    ...options,
  });
  return { server, errors };
}

const bearer = (token: string, path = '/things') =>
  new Request(`${API_RESOURCE}${path}`, { headers: { authorization: `Bearer ${token}` } });

const outcome = (verdict: Verdict) =>
  verdict.ok ? 'ok' : `${verdict.status} ${JSON.parse(verdict.body || '{}').error ?? ''}`.trim();

describe('the resource-server kit against Gatehouse', () => {
  it('admits a JWT access token issued for the resource, with its claims', async () => {
    const h = await createHarness({ otherRealms: [OTHER_REALM] });
    const { server, errors } = resourceServer(h);
    const token = await h.issueToken('post-client', { resource: API_RESOURCE, scope: 'api:read' });
    const verdict = await server.verify(bearer(token));
    expect(verdict).toMatchObject({
      ok: true,
      token: {
        verifiedBy: 'jwt',
        scopes: ['api:read'],
        claims: {
          iss: h.issuer(),
          aud: API_RESOURCE,
          sub: 'post-client',
          client_id: 'post-client',
        },
      },
    });
    expect(errors).toEqual([]);
  });

  it('refuses tokens for another resource, for the client itself, from another realm, and expired', async () => {
    const h = await createHarness({ otherRealms: [OTHER_REALM] });
    const { server, errors } = resourceServer(h);
    const other = await h.issueToken('post-client', { resource: OTHER_RESOURCE });
    const ownAudience = await h.issueToken('post-client', { scope: 'api:read' });
    const fromOtherRealm = await h.post('/oauth/other/token', {
      grant_type: 'client_credentials',
      client_id: 'stranger',
      client_secret: 'stranger-secret-0123456789abcdef',
      resource: API_RESOURCE,
    });
    const stranger = fromOtherRealm.json().access_token as string;
    const valid = await h.issueToken('post-client', { resource: API_RESOURCE, scope: 'api:read' });
    for (const [name, token] of [
      ['another resource', other],
      ['no resource', ownAudience],
      ['another realm', stranger],
    ] as const) {
      expect(outcome(await server.verify(bearer(token))), name).toBe('401 invalid_token');
    }
    h.clock.advance(600 + 31);
    const expired = await server.verify(bearer(valid));
    expect(outcome(expired)).toBe('401 invalid_token');
    expect(expired.ok || JSON.parse(expired.body)).toEqual({
      error: 'invalid_token',
      error_description: 'the token has expired',
    });
    expect(errors).toEqual([]);
  });

  it('answers a token without the scope the route needs 403 insufficient_scope', async () => {
    const h = await createHarness();
    const { server } = resourceServer(h);
    const token = await h.issueToken('post-client', { resource: API_RESOURCE, scope: 'api:read' });
    const verdict = await server.verify(bearer(token), { scopes: ['api:write'] });
    expect(verdict).toMatchObject({
      status: 403,
      headers: {
        'www-authenticate': expect.stringMatching(
          /^Bearer error="insufficient_scope", .*scope="api:read api:write", resource_metadata="https:\/\/api.example.com\/.well-known\/oauth-protected-resource"/,
        ),
      },
    });
  });

  it('introspects opaque tokens with the resource’s client, and refuses them once revoked', async () => {
    const h = await createHarness({ realm: { access_token_format: 'opaque' } });
    const { server, errors } = resourceServer(h, {
      introspection: { clientId: 'api', clientSecret: SECRETS.api },
    });
    const token = await h.issueToken('post-client', { resource: API_RESOURCE, scope: 'api:read' });
    expect(await server.verify(bearer(token))).toMatchObject({
      ok: true,
      token: { verifiedBy: 'introspection', claims: { sub: 'post-client', aud: API_RESOURCE } },
    });
    const forOther = await h.issueToken('post-client', { resource: OTHER_RESOURCE });
    expect(outcome(await server.verify(bearer(forOther)))).toBe('401 invalid_token');
    expect((await h.postAs('post-client', REVOKE, { token })).status).toBe(200);
    expect(outcome(await server.verify(bearer(token)))).toBe('401 invalid_token');
    expect(errors).toEqual([]);
  });

  it('introspects JWTs too when asked, so a revoked one stops at once', async () => {
    const h = await createHarness();
    const { server } = resourceServer(h, {
      introspection: { clientId: 'api', clientSecret: SECRETS.api, jwts: true },
    });
    const token = await h.issueToken('post-client', { resource: API_RESOURCE, scope: 'api:read' });
    expect(outcome(await server.verify(bearer(token)))).toBe('ok');
    expect((await h.postAs('post-client', REVOKE, { token })).status).toBe(200);
    expect(outcome(await server.verify(bearer(token)))).toBe('401 invalid_token');
  });

  it('answers 503 and reports it when the introspecting client is refused', async () => {
    const h = await createHarness({ realm: { access_token_format: 'opaque' } });
    const { server, errors } = resourceServer(h, {
      introspection: { clientId: 'api', clientSecret: 'wrong-secret' },
    });
    const token = await h.issueToken('post-client', { resource: API_RESOURCE });
    expect(outcome(await server.verify(bearer(token)))).toBe('503 temporarily_unavailable');
    expect(String(errors[0])).toMatch(/introspection endpoint/);
  });

  it.each([
    ['a JWT', 'jwt', {}],
    [
      'an introspected opaque token',
      'opaque',
      { introspection: { clientId: 'api', clientSecret: SECRETS.api } },
    ],
  ] as const)(
    'admits %s bound to a DPoP key with its proof, and no other way',
    async (_, format, options) => {
      const h = await createHarness({ realm: { access_token_format: format } });
      const { server, errors } = resourceServer(h, options);
      const key = await dpopKey(h.clock.now);
      const issued = await h.post(
        TOKEN,
        {
          grant_type: 'client_credentials',
          resource: API_RESOURCE,
          scope: 'api:read',
          ...(await h.credentialsOf('post-client')).fields,
        },
        { dpop: await key.proof({ htu: `${h.issuer()}/token` }) },
      );
      expect(issued.json().token_type).toBe('DPoP');
      const token = issued.json().access_token as string;
      const url = `${API_RESOURCE}/things`;
      const withProof = async (by = key) =>
        new Request(url, {
          headers: {
            authorization: `DPoP ${token}`,
            dpop: await by.proof({ htm: 'GET', htu: url, accessToken: token }),
          },
        });
      expect(await server.verify(await withProof())).toMatchObject({
        ok: true,
        token: { dpopJkt: key.jkt },
      });
      expect(outcome(await server.verify(bearer(token)))).toBe('401 invalid_token');
      const stranger = await dpopKey(h.clock.now);
      expect(outcome(await server.verify(await withProof(stranger)))).toBe(
        '401 invalid_dpop_proof',
      );
      expect(errors).toEqual([]);
    },
  );
});
