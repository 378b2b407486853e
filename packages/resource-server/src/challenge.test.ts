import { describe, expect, it } from 'vitest';
import { type ChallengeSettings, denial, failure } from './challenge.js';
import { TokenError } from './token-error.js';

const METADATA = 'https://api.example.com/.well-known/oauth-protected-resource';
const bearerOnly: ChallengeSettings = {
  resourceMetadata: METADATA,
  bearer: true,
  dpopAlgorithms: undefined,
};
const both: ChallengeSettings = { ...bearerOnly, dpopAlgorithms: ['ES256', 'EdDSA'] };

describe('challenges (RFC 6750 §3, RFC 9449 §7.1, RFC 9728 §5.1)', () => {
  it('answers a request without a token 401 with a bare challenge per scheme', () => {
    expect(denial(bearerOnly, [])).toEqual({
      ok: false,
      status: 401,
      headers: { 'www-authenticate': `Bearer resource_metadata="${METADATA}"` },
      body: '',
    });
    expect(denial(both, ['api:read', 'api:write']).headers['www-authenticate']).toBe(
      `Bearer scope="api:read api:write", resource_metadata="${METADATA}", ` +
        `DPoP scope="api:read api:write", resource_metadata="${METADATA}", algs="ES256 EdDSA"`,
    );
  });

  it('puts the error on the scheme the request used, with a JSON body', () => {
    const expired = new TokenError('invalid_token', 'the token has expired');
    const bearer = denial(both, [], expired, 'Bearer');
    expect(bearer.status).toBe(401);
    expect(bearer.headers).toEqual({
      'www-authenticate':
        `Bearer error="invalid_token", error_description="the token has expired", resource_metadata="${METADATA}", ` +
        `DPoP resource_metadata="${METADATA}", algs="ES256 EdDSA"`,
      'content-type': 'application/json',
    });
    expect(JSON.parse(bearer.body)).toEqual({
      error: 'invalid_token',
      error_description: 'the token has expired',
    });
    expect(denial(both, [], expired, 'DPoP').headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${METADATA}", ` +
        `DPoP error="invalid_token", error_description="the token has expired", resource_metadata="${METADATA}", algs="ES256 EdDSA"`,
    );
    const dpopOnly = { ...both, bearer: false };
    expect(denial(dpopOnly, [], expired, 'Bearer').headers['www-authenticate']).toMatch(
      /^DPoP error="invalid_token"/,
    );
  });

  it('answers a missing scope 403 insufficient_scope naming the scopes needed', () => {
    const missing = new TokenError('insufficient_scope', 'the token lacks a scope this needs');
    const answer = denial(bearerOnly, ['api:write'], missing, 'Bearer');
    expect(answer.status).toBe(403);
    expect(answer.headers['www-authenticate']).toBe(
      `Bearer error="insufficient_scope", error_description="the token lacks a scope this needs", scope="api:write", resource_metadata="${METADATA}"`,
    );
  });

  it('answers a malformed request 400 and quotes values safely', () => {
    const malformed = new TokenError('invalid_request', 'say "why" \\ here');
    const answer = denial(bearerOnly, [], malformed, 'Bearer');
    expect(answer.status).toBe(400);
    expect(answer.headers['www-authenticate']).toContain(
      'error_description="say \\"why\\" \\\\ here"',
    );
  });

  it('answers 503 with Retry-After when the authorization server cannot be used, 500 for a bug', () => {
    expect(failure(503)).toMatchObject({ status: 503, headers: { 'retry-after': '5' } });
    expect(JSON.parse(failure(500).body)).toEqual({
      error: 'server_error',
      error_description: 'the token could not be checked',
    });
  });
});
