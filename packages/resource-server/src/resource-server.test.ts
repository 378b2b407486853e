import { UnsecuredJWT } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ISSUER,
  JWKS_URI,
  METADATA_URL,
  RESOURCE,
  type TestIssuer,
  testIssuer,
} from '../test-support/issuer.js';
import type { ResourceServerOptions } from './options.js';
import { createResourceServer, type Verdict } from './resource-server.js';

let issuer: TestIssuer;
let errors: unknown[];
beforeEach(async () => {
  issuer = await testIssuer();
  errors = [];
});

const server = (options: Partial<ResourceServerOptions> = {}) =>
  createResourceServer({
    resource: RESOURCE,
    issuer: ISSUER,
    dpop: false,
    fetch: issuer.fetch,
    onError: (error) => errors.push(error),
    ...options,
  });

const request = (authorization?: string) =>
  new Request(`${RESOURCE}/things`, authorization ? { headers: { authorization } } : {});

/** The error of a challenge, or 'ok'. */
const outcome = (verdict: Verdict) =>
  verdict.ok ? 'ok' : `${verdict.status} ${JSON.parse(verdict.body || '{}').error ?? ''}`.trim();

describe('createResourceServer, JWT access tokens (RFC 9068)', () => {
  it('admits a valid token and hands its claims and scopes to the route', async () => {
    const token = await issuer.token({ scope: 'api:read api:write' });
    const verdict = await server().verify(request(`Bearer ${token}`));
    expect(verdict).toMatchObject({
      ok: true,
      token: {
        verifiedBy: 'jwt',
        scopes: ['api:read', 'api:write'],
        claims: { sub: 'alice', client_id: 'agent', iss: ISSUER, aud: RESOURCE },
      },
    });
  });

  it('answers a request without a token 401 with a bare challenge naming its metadata', async () => {
    const verdict = await server({ scopes: ['api:read'] }).verify(request());
    expect(verdict).toEqual({
      ok: false,
      status: 401,
      headers: {
        'www-authenticate': `Bearer scope="api:read", resource_metadata="${METADATA_URL}"`,
      },
      body: '',
    });
    expect(outcome(await server().verify(request('Basic YTpi')))).toBe('401');
  });

  it('refuses every token RFC 9068 §4 says to refuse, with invalid_token', async () => {
    const now = Math.floor(Date.now() / 1000);
    const otherKey = (await testIssuer()).privateKey;
    const hmac = new TextEncoder().encode('a-shared-secret-of-at-least-32-bytes!');
    const cases: [string, Promise<string>][] = [
      ['another audience', issuer.token({ aud: 'https://other.example.com' })],
      ['another issuer', issuer.token({ iss: 'https://evil.example.com' })],
      ['expired beyond the tolerance', issuer.token({ exp: now - 31 })],
      ['not valid yet', issuer.token({ nbf: now + 120 })],
      ['typ JWT', issuer.token({}, { typ: 'JWT' })],
      ['no typ', issuer.token({}, { typ: undefined })],
      ['an ID token typ', issuer.token({}, { typ: 'id_token+jwt' })],
      ['no client_id', issuer.token({ client_id: undefined })],
      ['no jti', issuer.token({ jti: undefined })],
      ['signed by another key under the same kid', issuer.token({}, {}, otherKey)],
      ['a kid the issuer lacks', issuer.token({}, { kid: 'key-2' })],
      ['HMAC', issuer.token({}, { alg: 'HS256' }, hmac)],
      ['a malformed scope', issuer.token({ scope: ['api:read'] })],
    ];
    const api = server();
    for (const [name, token] of cases) {
      const verdict = await api.verify(request(`Bearer ${await token}`));
      expect(outcome(verdict), name).toBe('401 invalid_token');
    }
    expect(errors).toEqual([]);
  });

  it('refuses alg none, whether read as a JWT or not', async () => {
    const unsecured = new UnsecuredJWT({ iss: ISSUER, aud: RESOURCE, scope: 'api:read' })
      .setIssuedAt()
      .setExpirationTime('5m')
      .encode();
    expect(outcome(await server().verify(request(`Bearer ${unsecured}`)))).toBe(
      '401 invalid_token',
    );
    // The same header on a token with a signature part.
    const [, payload] = unsecured.split('.');
    const header = Buffer.from('{"alg":"none","typ":"at+jwt"}').toString('base64url');
    const forged = `${header}.${payload}.c2ln`;
    expect(outcome(await server().verify(request(`Bearer ${forged}`)))).toBe('401 invalid_token');
  });

  it('allows the configured clock tolerance on exp, and generic JWTs only when asked', async () => {
    const now = Math.floor(Date.now() / 1000);
    const lateToken = await issuer.token({ exp: now - 20 });
    expect(outcome(await server().verify(request(`Bearer ${lateToken}`)))).toBe('ok');
    expect(
      outcome(await server({ clockToleranceSeconds: 5 }).verify(request(`Bearer ${lateToken}`))),
    ).toBe('401 invalid_token');
    const generic = await issuer.token({ client_id: undefined, jti: undefined }, { typ: 'JWT' });
    expect(outcome(await server().verify(request(`Bearer ${generic}`)))).toBe('401 invalid_token');
    expect(
      outcome(await server({ allowGenericJwt: true }).verify(request(`Bearer ${generic}`))),
    ).toBe('ok');
  });

  it('accepts HMAC tokens only with a configured secret and algorithm', async () => {
    const secret = new TextEncoder().encode('a-shared-secret-of-at-least-32-bytes!');
    const token = await issuer.token({}, { alg: 'HS256', kid: undefined }, secret);
    const api = server({ algorithms: ['ES256', 'HS256'], hmacSecret: secret });
    expect(outcome(await api.verify(request(`Bearer ${token}`)))).toBe('ok');
    const other = await issuer.token({}, { alg: 'HS256' }, new Uint8Array(32));
    expect(outcome(await api.verify(request(`Bearer ${other}`)))).toBe('401 invalid_token');
    // The issuer's ES256 tokens still verify with its published keys.
    expect(outcome(await api.verify(request(`Bearer ${await issuer.token()}`)))).toBe('ok');
  });

  it('answers a missing scope 403 insufficient_scope, naming the scopes the route needs', async () => {
    const token = await issuer.token({ scope: 'api:read' });
    const api = server({ scopes: ['api:read'] });
    expect(outcome(await api.verify(request(`Bearer ${token}`)))).toBe('ok');
    const verdict = await api.verify(request(`Bearer ${token}`), { scopes: ['api:write'] });
    expect(verdict).toMatchObject({
      ok: false,
      status: 403,
      headers: {
        'www-authenticate':
          'Bearer error="insufficient_scope", error_description="the token lacks a scope this request needs", ' +
          `scope="api:read api:write", resource_metadata="${METADATA_URL}"`,
      },
    });
  });

  it('reads the jwks_uri from the issuer metadata once, or not at all when it is given', async () => {
    const api = server();
    for (let i = 0; i < 3; i++) await api.verify(request(`Bearer ${await issuer.token()}`));
    expect(issuer.fetched).toEqual([`${ISSUER}/.well-known/openid-configuration`, JWKS_URI]);
    issuer.fetched.length = 0;
    await server({ jwksUri: JWKS_URI }).verify(request(`Bearer ${await issuer.token()}`));
    expect(issuer.fetched).toEqual([JWKS_URI]);
  });

  it('answers 503 while the keys cannot be fetched, without fetching for every request', async () => {
    const answers: [string, () => Response][] = [
      ['an error', () => new Response('down', { status: 500 })],
      ['a redirect', () => new Response(null, { status: 302, headers: { location: '/x' } })],
      ['too many bytes', () => Response.json({ keys: [], padding: 'x'.repeat(70_000) })],
      ['too many keys', () => Response.json({ keys: Array.from({ length: 51 }, () => ({})) })],
      ['no key set', () => Response.json({ nope: true })],
    ];
    for (const [name, answer] of answers) {
      issuer.routes.set(JWKS_URI, answer);
      issuer.fetched.length = 0;
      errors = [];
      const api = server({ jwksUri: JWKS_URI });
      const token = await issuer.token();
      const verdict = await api.verify(request(`Bearer ${token}`));
      expect(verdict, name).toMatchObject({ status: 503, headers: { 'retry-after': '5' } });
      expect(outcome(await api.verify(request(`Bearer ${token}`))), name).toBe(
        '503 temporarily_unavailable',
      );
      expect(issuer.fetched, name).toEqual([JWKS_URI]);
      expect(errors.length, name).toBe(2);
      expect(String(errors[0]), name).toMatch(/jwks_uri/);
    }
  });

  it('refuses a token that is not a JWT when there is no introspection', async () => {
    expect(outcome(await server().verify(request('Bearer opaque-token-0123')))).toBe(
      '401 invalid_token',
    );
  });

  it('answers a malformed Authorization header 400 invalid_request', async () => {
    expect(outcome(await server().verify(request('Bearer a b')))).toBe('400 invalid_request');
  });

  it('checks its options when created', () => {
    const cases: [Partial<ResourceServerOptions>, RegExp][] = [
      [{ resource: 'https://api.example.com/#top' }, /resource must have no fragment/],
      [{ issuer: 'id.example.com' }, /issuer must be an absolute URL/],
      [{ algorithms: ['none'] }, /none is not an algorithm for access tokens/],
      [{ algorithms: ['HS256'] }, /HS256 needs hmacSecret/],
      [{ hmacSecret: new Uint8Array(32) }, /no HMAC algorithm/],
      [{ algorithms: ['HS256'], hmacSecret: new Uint8Array(16) }, /at least 32 bytes/],
      [{ dpop: { algorithms: ['HS256'] } }, /dpop.algorithms: HS256 is not asymmetric/],
      [{ clockToleranceSeconds: -1 }, /clockToleranceSeconds/],
    ];
    for (const [options, message] of cases) {
      expect(() => server(options), JSON.stringify(options)).toThrow(message);
    }
  });

  it('publishes its RFC 9728 metadata from its options', () => {
    const api = createResourceServer({
      resource: 'https://api.example.com/mcp',
      issuer: ISSUER,
      dpop: { required: true, algorithms: ['ES256'] },
      metadata: { resource_name: 'Example MCP', scopes_supported: ['mcp:tools'] },
    });
    expect(api.metadataPath).toBe('/.well-known/oauth-protected-resource/mcp');
    expect(api.metadataUrl).toBe(
      'https://api.example.com/.well-known/oauth-protected-resource/mcp',
    );
    expect(api.metadata).toEqual({
      resource: 'https://api.example.com/mcp',
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
      resource_name: 'Example MCP',
      scopes_supported: ['mcp:tools'],
      dpop_signing_alg_values_supported: ['ES256'],
      dpop_bound_access_tokens_required: true,
    });
  });

  it('never rejects: a failure of its own is reported and answered 500', async () => {
    const api = server({
      jwksUri: JWKS_URI,
      now: () => {
        throw new Error('clock broke');
      },
    });
    expect(outcome(await api.verify(request(`Bearer ${await issuer.token()}`)))).toBe(
      '500 server_error',
    );
    expect(String(errors[0])).toMatch(/clock broke/);
  });
});
