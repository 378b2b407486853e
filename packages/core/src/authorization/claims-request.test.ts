import { describe, expect, it } from 'vitest';
import type { Client } from '../realms/realm.js';
import { parseClaimsParameter, scopesForClaims } from './claims-request.js';

const client = { scopes: new Set(['openid', 'profile', 'email']) } as unknown as Client;
const parse = (claims: unknown) => parseClaimsParameter(JSON.stringify(claims), client);

describe('parseClaimsParameter', () => {
  it('keeps the claims a scope of the client releases, per target', () => {
    expect(
      parse({
        userinfo: { name: { essential: true }, phone_number: null, 'x-custom': null },
        id_token: { email: null, auth_time: { essential: true }, nonce: null },
      }),
    ).toEqual({ claims: { userinfo: ['name'], id_token: ['email'] } });
  });

  it('reads acr: always kept for the ID token, its values required when essential', () => {
    expect(parse({ id_token: { acr: null } })).toEqual({
      claims: { userinfo: [], id_token: ['acr'] },
    });
    expect(parse({ id_token: { acr: { essential: true, values: ['a', 'b', 3] } } })).toEqual({
      claims: { userinfo: [], id_token: ['acr'] },
      requiredAcr: ['a', 'b'],
    });
    expect(parse({ id_token: { acr: { essential: true, value: 'a' } } }).requiredAcr).toEqual([
      'a',
    ]);
    expect(parse({ id_token: { acr: { values: ['a'] } } }).requiredAcr).toBeUndefined();
  });

  it('reads a sub requested with a value as the expected user', () => {
    expect(parse({ id_token: { sub: { value: 'bob' } } })).toEqual({
      claims: { userinfo: [], id_token: [] },
      expectedSub: 'bob',
    });
  });

  it('ignores other members and null targets', () => {
    expect(parse({ userinfo: null, verified_claims: {} })).toEqual({
      claims: { userinfo: [], id_token: [] },
    });
  });

  it.each([
    ['not JSON', '{'],
    ['a number', '1'],
    ['null', 'null'],
    ['a list target', '{"id_token":[]}'],
    ['a claim that is a string', '{"userinfo":{"name":"x"}}'],
    [
      'too many claims',
      JSON.stringify({
        userinfo: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`c${i}`, null])),
      }),
    ],
  ])('refuses %s with invalid_request', (_, value) => {
    expect(() => parseClaimsParameter(value, client)).toThrow(
      expect.objectContaining({ code: 'invalid_request', redirectable: true }),
    );
  });

  it('is not fooled by __proto__ keys', () => {
    const parsed = parseClaimsParameter(
      '{"userinfo":{"__proto__":{"essential":true},"email":null}}',
      client,
    );
    expect(parsed.claims.userinfo).toEqual(['email']);
  });
});

describe('scopesForClaims', () => {
  it('lists the scopes consent must also cover, once each, leaving out requested ones', () => {
    const claims = { userinfo: ['name', 'email'], id_token: ['given_name', 'acr'] };
    expect(scopesForClaims(claims, ['openid'], client)).toEqual(['profile', 'email']);
    expect(scopesForClaims(claims, ['openid', 'email'], client)).toEqual(['profile']);
  });
});
