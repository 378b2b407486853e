import { describe, expect, it } from 'vitest';
import type { TokenFamily } from '../lifecycle/token-family.js';
import type { Client } from '../realms/realm.js';
import { idTokenHasUserClaims, idTokenUserClaims } from './id-token-claims.js';

const ACCOUNT = { name: 'Alice', email: 'alice@example.com', phone_number: '+1' };
const grant = (claims?: TokenFamily['claims']): TokenFamily => ({
  grantId: 'g',
  realm: 'r',
  sub: 'alice',
  clientId: 'app',
  scopes: ['openid', 'profile'],
  authTime: 1,
  ...(claims ? { claims } : {}),
});
const client = (claimsInIdToken: boolean) =>
  ({ config: { claims_in_id_token: claimsInIdToken } }) as unknown as Client;

describe('ID token user claims', () => {
  it('carries none beside an access token unless asked for', () => {
    expect(idTokenHasUserClaims(grant(), client(false), true)).toBe(false);
    expect(
      idTokenHasUserClaims(grant({ userinfo: ['email'], id_token: ['acr'] }), client(false), true),
    ).toBe(false);
  });

  it('carries the scope claims without an access token, or for a claims_in_id_token client', () => {
    expect(
      idTokenUserClaims(ACCOUNT, grant(), client(false), ['openid', 'profile'], false),
    ).toEqual({
      name: 'Alice',
    });
    expect(idTokenHasUserClaims(grant(), client(true), true)).toBe(true);
    expect(idTokenUserClaims(ACCOUNT, grant(), client(true), ['openid', 'profile'], true)).toEqual({
      name: 'Alice',
    });
  });

  it('adds the claims asked for by name: ID token ones, and userinfo ones without an access token', () => {
    const asked = grant({ userinfo: ['phone_number'], id_token: ['email', 'acr'] });
    expect(idTokenHasUserClaims(asked, client(false), true)).toBe(true);
    expect(idTokenUserClaims(ACCOUNT, asked, client(false), ['openid'], true)).toEqual({
      email: 'alice@example.com',
    });
    expect(idTokenUserClaims(ACCOUNT, asked, client(false), ['openid'], false)).toEqual({
      email: 'alice@example.com',
      phone_number: '+1',
    });
  });
});
