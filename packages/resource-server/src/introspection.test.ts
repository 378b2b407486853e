import { beforeEach, describe, expect, it } from 'vitest';
import {
  INTROSPECTION_ENDPOINT,
  ISSUER,
  RESOURCE,
  type TestIssuer,
  testIssuer,
} from '../test-support/issuer.js';
import type { IntrospectionOptions } from './introspection.js';
import { createResourceServer, type Verdict } from './resource-server.js';

let issuer: TestIssuer;
let errors: unknown[];
let introspected: { authorization: string | null; form: Record<string, string> }[];
/** What the endpoint answers next: status and body. */
let answer: [number, Record<string, unknown>];

const nowSeconds = () => Math.floor(Date.now() / 1000);
const ACTIVE = () => ({
  active: true,
  iss: ISSUER,
  aud: RESOURCE,
  sub: 'alice',
  client_id: 'agent',
  scope: 'api:read',
  exp: nowSeconds() + 300,
});

beforeEach(async () => {
  issuer = await testIssuer();
  errors = [];
  introspected = [];
  answer = [200, ACTIVE()];
  issuer.routes.set(INTROSPECTION_ENDPOINT, async (request) => {
    introspected.push({
      authorization: request.headers.get('authorization'),
      form: Object.fromEntries(new URLSearchParams(await request.text())),
    });
    return Response.json(answer[1], { status: answer[0] });
  });
});

const server = (introspection: Partial<IntrospectionOptions> = {}) =>
  createResourceServer({
    resource: RESOURCE,
    issuer: ISSUER,
    fetch: issuer.fetch,
    onError: (error) => errors.push(error),
    introspection: { clientId: 'api', clientSecret: 'api secret:%', ...introspection },
  });

const verify = (api: ReturnType<typeof server>, token = 'opaque-token', scopes?: string[]) =>
  api.verify(
    new Request(`${RESOURCE}/things`, { headers: { authorization: `Bearer ${token}` } }),
    scopes ? { scopes } : undefined,
  );

const outcome = (verdict: Verdict) =>
  verdict.ok ? 'ok' : `${verdict.status} ${JSON.parse(verdict.body || '{}').error ?? ''}`.trim();

describe('opaque tokens by introspection (RFC 7662)', () => {
  it('admits an active token, authenticating with client_secret_basic at the discovered endpoint', async () => {
    const verdict = await verify(server());
    expect(verdict).toMatchObject({
      ok: true,
      token: { verifiedBy: 'introspection', scopes: ['api:read'], claims: { sub: 'alice' } },
    });
    expect(introspected).toEqual([
      {
        authorization: `Basic ${btoa('api:api+secret%3A%25')}`,
        form: { token: 'opaque-token', token_type_hint: 'access_token' },
      },
    ]);
  });

  it('sends client_secret_post credentials in the form, to the endpoint given', async () => {
    issuer.fetched.length = 0;
    await verify(server({ authMethod: 'client_secret_post', endpoint: INTROSPECTION_ENDPOINT }));
    expect(introspected[0]).toEqual({
      authorization: null,
      form: {
        token: 'opaque-token',
        token_type_hint: 'access_token',
        client_id: 'api',
        client_secret: 'api secret:%',
      },
    });
    expect(issuer.fetched).toEqual([INTROSPECTION_ENDPOINT]);
  });

  it('refuses inactive tokens (200 or Gatehouse’s 400) and answers it does not trust', async () => {
    const cases: [string, [number, Record<string, unknown>]][] = [
      ['inactive, 200', [200, { active: false }]],
      ['inactive, 400', [400, { active: false }]],
      ['another audience', [200, { ...ACTIVE(), aud: 'https://other.example.com' }]],
      ['no audience', [200, { ...ACTIVE(), aud: undefined }]],
      ['another issuer', [200, { ...ACTIVE(), iss: 'https://evil.example.com' }]],
      ['expired', [200, { ...ACTIVE(), exp: nowSeconds() - 60 }]],
      ['active as a string', [200, { ...ACTIVE(), active: 'true' }]],
    ];
    for (const [name, reply] of cases) {
      answer = reply;
      const expected =
        name === 'active as a string' ? '503 temporarily_unavailable' : '401 invalid_token';
      expect(outcome(await verify(server())), name).toBe(expected);
    }
  });

  it('answers 503 when the endpoint fails, and reports it', async () => {
    answer = [401, { error: 'invalid_client' }];
    expect(outcome(await verify(server()))).toBe('503 temporarily_unavailable');
    expect(String(errors[0])).toMatch(/introspection endpoint .* answered HTTP 401/);
  });

  it('answers a missing scope 403', async () => {
    expect(outcome(await verify(server(), 'opaque-token', ['api:write']))).toBe(
      '403 insufficient_scope',
    );
  });

  it('verifies JWTs locally unless told to introspect them too', async () => {
    const jwt = await issuer.token();
    expect(await verify(server(), jwt)).toMatchObject({ ok: true, token: { verifiedBy: 'jwt' } });
    expect(introspected).toEqual([]);
    expect(await verify(server({ jwts: true }), jwt)).toMatchObject({
      token: { verifiedBy: 'introspection' },
    });
    expect(introspected.length).toBe(1);
  });

  it('caches active answers when asked, never past the token’s exp', async () => {
    const api = server({ cache: { maxEntries: 10, maxAgeSeconds: 60 } });
    for (let i = 0; i < 3; i++) expect(outcome(await verify(api))).toBe('ok');
    expect(introspected.length).toBe(1);
    answer = [200, { active: false }];
    expect(outcome(await verify(api, 'another-token'))).toBe('401 invalid_token');
    expect(outcome(await verify(api, 'another-token'))).toBe('401 invalid_token');
    expect(introspected.length).toBe(3);

    answer = [200, { ...ACTIVE(), exp: nowSeconds() - 1 }];
    const tolerant = server({ cache: {} });
    // Accepted within the clock tolerance, but not kept past its exp.
    expect(outcome(await verify(tolerant, 'late-token'))).toBe('ok');
    expect(outcome(await verify(tolerant, 'late-token'))).toBe('ok');
    expect(introspected.length).toBe(5);
  });
});
