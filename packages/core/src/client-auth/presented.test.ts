import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { oauthErrorOf } from '../../test-support/oauth-errors.js';
import { parseUrlEncoded } from '../http/form.js';
import { JWT_BEARER_ASSERTION, presentedCredentials } from './presented.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const assertionFor = (sub: string) =>
  new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setSubject(sub).sign(new Uint8Array(32));
const jwtClient = await assertionFor('jwt-client');
const noSubject = new UnsecuredJWT({}).encode();

function presented(form: string, authorization?: string) {
  const request = { method: 'POST', path: '/', query: '', headers: { authorization } };
  return presentedCredentials(request, parseUrlEncoded(form));
}

const assertionForm = (extra = '') =>
  `client_assertion=${jwtClient}&client_assertion_type=${encodeURIComponent(JWT_BEARER_ASSERTION)}${extra}`;

describe('presentedCredentials', () => {
  it.each([
    [
      'client_id and secret in the body',
      'client_id=a&client_secret=s',
      undefined,
      { kind: 'post', clientId: 'a', secret: 's' },
    ],
    ['client_id only', 'client_id=a', undefined, { kind: 'none', clientId: 'a' }],
    [
      'an empty client_secret is no secret',
      'client_id=a&client_secret=',
      undefined,
      { kind: 'none', clientId: 'a' },
    ],
    ['Basic', '', `Basic ${b64('a:s')}`, { kind: 'basic', clientId: 'a', secret: 's' }],
    [
      'Basic, scheme in any case',
      '',
      `bAsIc ${b64('a:s')}`,
      { kind: 'basic', clientId: 'a', secret: 's' },
    ],
    [
      'Basic with form-urlencoded halves',
      '',
      `Basic ${b64('a%3Ab:s+%2B%25')}`,
      { kind: 'basic', clientId: 'a:b', secret: 's +%' },
    ],
    [
      'Basic with a colon in the secret',
      '',
      `Basic ${b64('a:s:t')}`,
      { kind: 'basic', clientId: 'a', secret: 's:t' },
    ],
    [
      'Basic with the same client_id in the body',
      'client_id=a',
      `Basic ${b64('a:s')}`,
      { kind: 'basic', clientId: 'a', secret: 's' },
    ],
    [
      'another Authorization scheme is not client authentication',
      'client_id=a',
      'Bearer abc',
      { kind: 'none', clientId: 'a' },
    ],
    [
      'an assertion, its sub is the client',
      assertionForm(),
      undefined,
      { kind: 'assertion', clientId: 'jwt-client', assertion: jwtClient },
    ],
    [
      'an assertion with the same client_id',
      assertionForm('&client_id=jwt-client'),
      undefined,
      { kind: 'assertion', clientId: 'jwt-client', assertion: jwtClient },
    ],
  ])('%s', (_, form, authorization, expected) => {
    expect(presented(form, authorization)).toEqual(expected);
  });

  it.each([
    ['Basic and client_secret', 'client_secret=s', `Basic ${b64('a:s')}`, 'invalid_request', 400],
    ['Basic and an assertion', assertionForm(), `Basic ${b64('a:s')}`, 'invalid_request', 400],
    [
      'client_secret and an assertion',
      assertionForm('&client_id=jwt-client&client_secret=s'),
      undefined,
      'invalid_request',
      400,
    ],
    [
      'an assertion without its type',
      `client_assertion=${jwtClient}`,
      undefined,
      'invalid_request',
      400,
    ],
    [
      'a type without an assertion',
      `client_assertion_type=${encodeURIComponent(JWT_BEARER_ASSERTION)}`,
      undefined,
      'invalid_request',
      400,
    ],
    [
      'another assertion type',
      `client_assertion=${jwtClient}&client_assertion_type=saml`,
      undefined,
      'invalid_request',
      400,
    ],
    ['nothing at all', 'grant_type=client_credentials', undefined, 'invalid_client', 400],
    ['a secret without client_id', 'client_secret=s', undefined, 'invalid_client', 400],
    [
      'client_id disagreeing with Basic',
      'client_id=b',
      `Basic ${b64('a:s')}`,
      'invalid_client',
      401,
    ],
    [
      'client_id disagreeing with the assertion',
      assertionForm('&client_id=other'),
      undefined,
      'invalid_client',
      400,
    ],
    [
      'an assertion that is not a JWT',
      `client_assertion=abc&client_assertion_type=${encodeURIComponent(JWT_BEARER_ASSERTION)}`,
      undefined,
      'invalid_client',
      400,
    ],
    [
      'an assertion without sub',
      `client_assertion=${noSubject}&client_assertion_type=${encodeURIComponent(JWT_BEARER_ASSERTION)}`,
      undefined,
      'invalid_client',
      400,
    ],
    ['Basic without credentials', '', 'Basic', 'invalid_client', 401],
    ['Basic that is not base64', '', 'Basic a:b', 'invalid_client', 401],
    ['Basic without a colon', '', `Basic ${b64('a')}`, 'invalid_client', 401],
    ['Basic with an empty client_id', '', `Basic ${b64(':s')}`, 'invalid_client', 401],
    ['Basic with broken percent-encoding', '', `Basic ${b64('a:%zz')}`, 'invalid_client', 401],
    [
      'Basic that is not UTF-8',
      '',
      `Basic ${Buffer.from([0xc3, 0x28, 0x3a, 0x73]).toString('base64')}`,
      'invalid_client',
      401,
    ],
  ])('%s → %s', (_, form, authorization, code, status) => {
    const error = oauthErrorOf(() => presented(form, authorization));
    expect({ code: error.code, status: error.status }).toEqual({ code, status });
    expect(error.headers['www-authenticate'] !== undefined).toBe(status === 401);
  });
});
