import { beforeEach, describe, expect, it } from 'vitest';
import {
  type DpopKey,
  dpopKey,
  ISSUER,
  METADATA_URL,
  RESOURCE,
  type TestIssuer,
  testIssuer,
} from '../test-support/issuer.js';
import type { DpopOptions } from './options.js';
import { createResourceServer, type Verdict } from './resource-server.js';

let issuer: TestIssuer;
let key: DpopKey;
beforeEach(async () => {
  issuer = await testIssuer();
  key = await dpopKey();
});

const URL_ = `${RESOURCE}/things`;
const server = (dpop: DpopOptions = {}) =>
  createResourceServer({ resource: RESOURCE, issuer: ISSUER, fetch: issuer.fetch, dpop });

const send = (
  api: ReturnType<typeof server>,
  headers: Record<string, string>,
  { method = 'GET', url = URL_ } = {},
) => api.verify(new Request(url, { method, headers }));

const outcome = (verdict: Verdict) =>
  verdict.ok ? 'ok' : `${verdict.status} ${JSON.parse(verdict.body || '{}').error ?? ''}`.trim();

describe('DPoP-bound tokens (RFC 9449)', () => {
  it('admits a bound token with a proof of its key for this request', async () => {
    const token = await issuer.token({ cnf: { jkt: key.jkt } });
    // The query is not part of htu; the proof may name the resource's origin in another spelling.
    const dpop = await key.proof({
      htm: 'POST',
      htu: 'HTTPS://API.example.com:443/things',
      accessToken: token,
    });
    const verdict = await send(
      server(),
      { authorization: `DPoP ${token}`, dpop },
      { method: 'POST', url: `${URL_}?page=2` },
    );
    expect(verdict).toMatchObject({ ok: true, token: { dpopJkt: key.jkt } });
  });

  it('refuses a bound token presented as Bearer, and an unbound one presented as DPoP', async () => {
    const bound = await issuer.token({ cnf: { jkt: key.jkt } });
    const asBearer = await send(server(), { authorization: `Bearer ${bound}` });
    expect(outcome(asBearer)).toBe('401 invalid_token');
    expect(asBearer.ok || asBearer.headers['www-authenticate']).toBe(
      'Bearer error="invalid_token", error_description="the token is DPoP-bound: send it with a DPoP proof", ' +
        `resource_metadata="${METADATA_URL}", DPoP resource_metadata="${METADATA_URL}", ` +
        'algs="ES256 ES384 ES512 PS256 PS384 PS512 RS256 RS384 RS512 EdDSA Ed25519"',
    );
    const unbound = await issuer.token();
    const dpop = await key.proof({ htm: 'GET', htu: URL_, accessToken: unbound });
    expect(outcome(await send(server(), { authorization: `DPoP ${unbound}`, dpop }))).toBe(
      '401 invalid_token',
    );
    // With DPoP turned off, a bound token is refused all the same.
    const off = createResourceServer({
      resource: RESOURCE,
      issuer: ISSUER,
      fetch: issuer.fetch,
      dpop: false,
    });
    expect(outcome(await send(off, { authorization: `Bearer ${bound}` }))).toBe(
      '401 invalid_token',
    );
  });

  it('refuses proofs for another request, token, key or time, and replays', async () => {
    const token = await issuer.token({ cnf: { jkt: key.jkt } });
    const target = { htm: 'GET', htu: URL_, accessToken: token };
    const other = await dpopKey();
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, Promise<string>][] = [
      ['another method', key.proof({ ...target, htm: 'POST' })],
      ['another URL', key.proof({ ...target, htu: `${RESOURCE}/other` })],
      ['another origin', key.proof({ ...target, htu: 'https://evil.example.com/things' })],
      ['another token', key.proof({ ...target, accessToken: 'another' })],
      ['another key', other.proof(target)],
      ['too old', key.proof(target, { iat: now - 120 })],
      ['from the future', key.proof(target, { iat: now + 120 })],
      ['typ JWT', key.proof(target, {}, { typ: 'JWT' })],
      ['no ath', key.proof(target, { ath: undefined })],
      ['no jti', key.proof(target, { jti: undefined })],
    ];
    const api = server();
    for (const [name, proof] of cases) {
      const verdict = await send(api, { authorization: `DPoP ${token}`, dpop: await proof });
      expect(outcome(verdict), name).toBe('401 invalid_dpop_proof');
      expect(verdict.ok || verdict.headers['www-authenticate'], name).toMatch(
        /DPoP error="invalid_dpop_proof"/,
      );
    }
    const proof = await key.proof(target);
    expect(outcome(await send(api, { authorization: `DPoP ${token}`, dpop: proof }))).toBe('ok');
    expect(outcome(await send(api, { authorization: `DPoP ${token}`, dpop: proof }))).toBe(
      '401 invalid_dpop_proof',
    );
  });

  it('refuses proofs signed with HMAC or none, or carrying a private key', async () => {
    const token = await issuer.token({ cnf: { jkt: key.jkt } });
    const [header, payload] = (
      await key.proof({ htm: 'GET', htu: URL_, accessToken: token })
    ).split('.');
    const decoded = JSON.parse(Buffer.from(header ?? '', 'base64url').toString());
    const withHeader = (changes: Record<string, unknown>) =>
      `${Buffer.from(JSON.stringify({ ...decoded, ...changes })).toString('base64url')}.${payload}.c2ln`;
    const cases: [string, string][] = [
      ['none', withHeader({ alg: 'none' })],
      ['HS256', withHeader({ alg: 'HS256', jwk: { kty: 'oct', k: 'c2VjcmV0' } })],
      ['a private key', withHeader({ jwk: { ...decoded.jwk, d: 'AAAA' } })],
    ];
    for (const [name, dpop] of cases) {
      expect(outcome(await send(server(), { authorization: `DPoP ${token}`, dpop })), name).toBe(
        '401 invalid_dpop_proof',
      );
    }
  });

  it('when required, refuses Bearer tokens and challenges with DPoP only', async () => {
    const api = server({ required: true, algorithms: ['ES256'] });
    const verdict = await send(api, { authorization: `Bearer ${await issuer.token()}` });
    expect(verdict).toMatchObject({
      status: 401,
      headers: {
        'www-authenticate':
          'DPoP error="invalid_token", error_description="this resource accepts DPoP-bound tokens only", ' +
          `resource_metadata="${METADATA_URL}", algs="ES256"`,
      },
    });
    expect(api.metadata).toMatchObject({ dpop_bound_access_tokens_required: true });
  });

  it('keeps its replay cache pluggable', async () => {
    const seen: [string, number][] = [];
    const api = server({ replayCache: { add: async (id, until) => seen.push([id, until]) > 0 } });
    const token = await issuer.token({ cnf: { jkt: key.jkt } });
    const dpop = await key.proof({ htm: 'GET', htu: URL_, accessToken: token }, { jti: 'j-1' });
    expect(outcome(await send(api, { authorization: `DPoP ${token}`, dpop }))).toBe('ok');
    expect(seen).toEqual([[`${key.jkt}:j-1`, expect.any(Number)]]);
    const iat = JSON.parse(Buffer.from(dpop.split('.')[1] ?? '', 'base64url').toString()).iat;
    expect(seen[0]?.[1]).toBe((iat + 60 + 30) * 1000);
  });
});
