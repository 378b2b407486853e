import { describe, expect, it } from 'vitest';
import type { Client, Realm } from '../realms/realm.js';
import { preflightResponse, withClientCors, withRealmCors } from './cors.js';
import type { GatehouseRequest, GatehouseResponse } from './types.js';

const realm = {
  corsOrigins: new Set(['https://a.example', 'https://b.example']),
} as unknown as Realm;
const clientA = { allowedOrigins: new Set(['https://a.example']) } as unknown as Client;
const from = (origin?: string): GatehouseRequest => ({
  method: 'POST',
  path: '/oauth/r/token',
  query: '',
  headers: origin === undefined ? {} : { origin },
});
const answer = (): GatehouseResponse => ({ status: 200, headers: { 'cache-control': 'no-store' } });

describe('preflightResponse', () => {
  it('allows an origin of any client of the realm, for the methods of the endpoint', () => {
    expect(
      preflightResponse(from('https://b.example'), ['POST', 'OPTIONS'], realm.corsOrigins),
    ).toEqual({
      status: 204,
      headers: {
        'access-control-allow-origin': 'https://b.example',
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'Authorization, Content-Type, DPoP',
        'access-control-max-age': '600',
        vary: 'Origin',
      },
    });
  });

  it('allows nothing to another origin, or to a request without one', () => {
    for (const origin of ['https://c.example', undefined]) {
      expect(preflightResponse(from(origin), ['POST'], realm.corsOrigins)).toEqual({
        status: 204,
        headers: { vary: 'Origin' },
      });
    }
  });
});

describe('withClientCors and withRealmCors', () => {
  it("echo an origin the client allows, and no other, adding Vary to the response's own", () => {
    const allowed = withClientCors(answer(), from('https://a.example'), clientA);
    expect(allowed.headers).toEqual({
      'cache-control': 'no-store',
      'access-control-allow-origin': 'https://a.example',
      'access-control-expose-headers': 'WWW-Authenticate, DPoP-Nonce',
      vary: 'Origin',
    });
    const refused = withClientCors(answer(), from('https://b.example'), clientA);
    expect(refused.headers).toEqual({ 'cache-control': 'no-store', vary: 'Origin' });
    const varied = { status: 200, headers: { vary: 'Accept' } };
    expect(withClientCors(varied, from('https://a.example'), clientA).headers.vary).toBe(
      'Accept, Origin',
    );
  });

  it('allow the origins of every client of the realm when no client is known', () => {
    expect(
      withRealmCors(answer(), from('https://b.example'), realm).headers[
        'access-control-allow-origin'
      ],
    ).toBe('https://b.example');
    expect(withRealmCors(answer(), from('https://c.example'), realm).headers).toEqual({
      'cache-control': 'no-store',
      vary: 'Origin',
    });
  });

  it('name Origin once in Vary, whatever the case the response wrote it in', () => {
    const varied = { status: 200, headers: { vary: 'accept, origin' } };
    expect(withRealmCors(varied, from('https://a.example'), realm).headers.vary).toBe(
      'accept, origin',
    );
  });

  it('leave the answer to a request without Origin untouched', () => {
    const response = answer();
    expect(withClientCors(response, from(), clientA)).toBe(response);
    expect(withRealmCors(response, from(), realm)).toBe(response);
  });
});
