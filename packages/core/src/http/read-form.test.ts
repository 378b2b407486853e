import { describe, expect, it } from 'vitest';
import { oauthErrorOf } from '../../test-support/oauth-errors.js';
import { readForm } from './read-form.js';
import type { GatehouseRequest } from './types.js';

const LIMIT = 1024;
const FORM = 'application/x-www-form-urlencoded';

function post(
  body: GatehouseRequest['body'],
  extra: Partial<GatehouseRequest> = {},
): GatehouseRequest {
  return {
    method: 'POST',
    path: '/oauth/test/token',
    query: '',
    headers: { 'content-type': FORM },
    body,
    ...extra,
  };
}

const errorOf = (request: GatehouseRequest) => oauthErrorOf(() => readForm(request, LIMIT));

describe('readForm', () => {
  it('reads a string body and a byte body alike', () => {
    const text = 'grant_type=client_credentials&scope=api%3Aread+api%3Awrite';
    for (const body of [text, new TextEncoder().encode(text)]) {
      const params = readForm(post(body), LIMIT);
      expect(params.get('grant_type')).toBe('client_credentials');
      expect(params.get('scope')).toBe('api:read api:write');
    }
  });

  it('reads a missing body as an empty form', () => {
    expect(readForm(post(undefined), LIMIT).names()).toEqual([]);
  });

  it.each([
    'application/x-www-form-urlencoded',
    'Application/X-WWW-Form-Urlencoded',
    'application/x-www-form-urlencoded; charset=utf-8',
    'application/x-www-form-urlencoded;charset="UTF-8"',
    'application/x-www-form-urlencoded ; Charset=utf-8',
  ])('accepts the content type %s', (contentType) => {
    expect(
      readForm(post('a=1', { headers: { 'content-type': contentType } }), LIMIT).get('a'),
    ).toBe('1');
  });

  it.each([
    undefined,
    'application/json',
    'multipart/form-data; boundary=x',
    'text/plain',
    'application/x-www-form-urlencodedx',
  ])('rejects the content type %s', (contentType) => {
    const error = errorOf(post('a=1', { headers: { 'content-type': contentType } }));
    expect([error.status, error.code, error.description]).toEqual([
      400,
      'invalid_request',
      'the request body must be application/x-www-form-urlencoded',
    ]);
  });

  it.each(['iso-8859-1', 'windows-1252', '"utf-16"', 'utf8'])(
    'rejects the charset %s',
    (charset) => {
      const error = errorOf(
        post('a=1', { headers: { 'content-type': `${FORM}; charset=${charset}` } }),
      );
      expect(error.description).toBe('the request body must be encoded in UTF-8');
    },
  );

  it('rejects a body of invalid UTF-8 bytes', () => {
    const error = errorOf(post(new Uint8Array([0x61, 0x3d, 0xff])));
    expect(error.description).toBe('the request is not valid UTF-8');
  });

  it('accepts a body of exactly the limit and answers 413 one byte over it', () => {
    const exact = `a=${'x'.repeat(LIMIT - 2)}`;
    expect(readForm(post(exact), LIMIT).get('a')).toHaveLength(LIMIT - 2);
    for (const body of [`${exact}x`, new TextEncoder().encode(`${exact}x`)]) {
      const error = errorOf(post(body));
      expect([error.status, error.code, error.description]).toEqual([
        413,
        'invalid_request',
        'the request body is too large',
      ]);
    }
  });

  it('counts the limit in UTF-8 bytes, not characters', () => {
    const error = errorOf(post(`a=${'ü'.repeat(LIMIT / 2)}`));
    expect(error.status).toBe(413);
  });

  it.each([
    'client_secret',
    'client_assertion',
    'token',
    'code',
    'code_verifier',
    'refresh_token',
    'auth_req_id',
    'password',
  ])('rejects %s in the query string', (name) => {
    const error = errorOf(post('a=1', { query: `x=1&${name}=value` }));
    expect(error.description).toBe(`${name} must be sent in the request body, not the URL`);
  });

  it('allows other query parameters and an empty credential name in the query', () => {
    const params = readForm(post('client_id=app', { query: 'tenant=a&client_secret=' }), LIMIT);
    expect(params.get('client_id')).toBe('app');
    expect(params.has('tenant')).toBe(false);
  });

  it('rejects a malformed query string', () => {
    expect(errorOf(post('a=1', { query: 'x=%zz' })).description).toBe('malformed percent-encoding');
  });

  it('honours pre-parsed pairs, with the same repeated-parameter and size rules', () => {
    const form = [
      ['grant_type', 'client_credentials'],
      ['scope', 'a b'],
      ['state', ''],
    ] as const;
    const params = readForm(post(undefined, { form }), LIMIT);
    expect(params.names()).toEqual(['grant_type', 'scope']);
    expect(params.get('scope')).toBe('a b');

    const repeated = errorOf(
      post(undefined, {
        form: [
          ['scope', 'a'],
          ['scope', 'b'],
        ],
      }),
    );
    expect(repeated.description).toBe('a parameter is repeated');
    const tooMany = Array.from({ length: 65 }, (_, i) => [`p${i}`, 'v'] as const);
    expect(errorOf(post(undefined, { form: tooMany })).description).toBe('too many parameters');
  });

  it('still checks the content type and the query of pre-parsed requests', () => {
    const form = [['a', '1']] as const;
    expect(
      errorOf(post(undefined, { form, headers: { 'content-type': 'application/json' } })).code,
    ).toBe('invalid_request');
    expect(errorOf(post(undefined, { form, query: 'code=abc' })).description).toBe(
      'code must be sent in the request body, not the URL',
    );
  });
});
