import { beforeAll, describe, expect, it } from 'vitest';
import { type ClientKeyPair, clientKeyPair } from '../../test-support/fixtures.js';
import { createProvider } from '../provider.js';
import { ConfigError, type ConfigIssue } from './issues.js';
import type { RealmInput } from './realm.js';

let es256: ClientKeyPair;
let rs256: ClientKeyPair;
beforeAll(async () => {
  [es256, rs256] = await Promise.all([clientKeyPair('ES256'), clientKeyPair('RS256')]);
});

const REDIRECT_URI = 'https://bank-app.example.com/cb';

/** A client that meets the FAPI 2.0 Security Profile. */
function fapiClient(id: string) {
  return {
    client_id: id,
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [es256.publicJwk] },
    redirect_uris: [REDIRECT_URI],
    grant_types: ['authorization_code', 'refresh_token'],
  };
}

/** A realm as a configuration file has it: plain JSON, checked by createProvider. */
function fapiRealm(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'bank', profile: 'fapi2', clients: [fapiClient('bank-app')], ...overrides };
}

/** The issues createProvider throws for `realm`, or none. */
function issuesOf(realm: Record<string, unknown>): readonly ConfigIssue[] {
  try {
    createProvider({ baseUrl: 'https://id.example.com', realms: [realm as RealmInput] });
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  return [];
}

describe('a fapi2 realm at configuration time', () => {
  it('takes clients that meet the profile', () => {
    expect(issuesOf(fapiRealm())).toEqual([]);
  });

  it('names every setting and client field that breaks the profile, all at once', () => {
    const realm = fapiRealm({
      request_object_signing_alg_values_supported: ['PS256', 'RS256', 'HS256'],
      dpop: { signing_alg_values: ['ES256', 'ES384'] },
      refresh_token_rotation_grace: 10,
      registration: { open: true },
      clients: [
        fapiClient('bank-app'),
        {
          ...fapiClient('legacy'),
          token_endpoint_auth_method: 'client_secret_basic',
          client_secret: 'legacy-secret-0123456789abcdef',
          jwks: undefined,
          response_types: ['code', 'code id_token', 'id_token token'],
          grant_types: ['authorization_code', 'implicit'],
          require_pkce: false,
        },
        {
          ...fapiClient('old-keys'),
          jwks: { keys: [rs256.publicJwk, es256.publicJwk] },
          token_endpoint_auth_signing_alg: 'RS256',
          id_token_signed_response_alg: 'RS256',
        },
        {
          client_id: 'spa',
          token_endpoint_auth_method: 'none',
          redirect_uris: [REDIRECT_URI],
        },
      ],
    });
    // Each issue: its path, and words its message contains.
    const expected: [path: string, words: string][] = [
      [
        'realms[0].request_object_signing_alg_values_supported[1]',
        'RS256 is not allowed in a fapi2 realm',
      ],
      ['realms[0].request_object_signing_alg_values_supported[2]', 'HS256 is not allowed'],
      ['realms[0].dpop.signing_alg_values[1]', 'ES384 is not allowed'],
      ['realms[0].refresh_token_rotation_grace', 'not rotated'],
      ['realms[0].registration.token_endpoint_auth_methods[0]', 'none is not allowed'],
      [
        'realms[0].registration.token_endpoint_auth_methods[1]',
        'client_secret_basic is not allowed',
      ],
      [
        'realms[0].registration.token_endpoint_auth_methods[2]',
        'client_secret_post is not allowed',
      ],
      ['realms[0].clients[1].token_endpoint_auth_method', 'only private_key_jwt'],
      ['realms[0].clients[1].jwks', 'or jwks_uri is required'],
      ['realms[0].clients[1].response_types[1]', '"code id_token" is not allowed'],
      ['realms[0].clients[1].response_types[2]', '"id_token token" is not allowed'],
      ['realms[0].clients[1].grant_types[1]', 'implicit is not allowed'],
      ['realms[0].clients[1].require_pkce', 'must be true in a fapi2 realm'],
      ['realms[0].clients[2].token_endpoint_auth_signing_alg', 'RS256 is not allowed'],
      ['realms[0].clients[2].id_token_signed_response_alg', 'RS256 is not allowed'],
      ['realms[0].clients[2].jwks.keys[0]', 'alg RS256 is not allowed'],
      ['realms[0].clients[3].token_endpoint_auth_method', 'none is not allowed'],
      ['realms[0].clients[3].jwks', 'or jwks_uri is required'],
    ];
    expect(issuesOf(realm)).toEqual(
      expected.map(([path, words]) => ({ path, message: expect.stringContaining(words) })),
    );
  });

  it('refuses RS256 as the realm key and codes that live longer than 60 seconds', () => {
    expect(issuesOf(fapiRealm({ signing_alg: 'RS256', authorization_code_ttl: 61 }))).toEqual([
      { path: 'realms[0].signing_alg', message: expect.stringContaining('RS256 is not allowed') },
      { path: 'realms[0].authorization_code_ttl', message: expect.stringContaining('at most 60') },
    ]);
  });

  it('refuses an EC key on another curve than P-256, which cannot sign ES256', async () => {
    const p384 = await clientKeyPair('ES384');
    const { alg: _alg, ...withoutAlg } = p384.publicJwk;
    const realm = fapiRealm({ clients: [{ ...fapiClient('app'), jwks: { keys: [withoutAlg] } }] });
    expect(issuesOf(realm)).toEqual([
      { path: 'realms[0].clients[0].jwks.keys[0]', message: expect.stringContaining('P-256') },
    ]);
  });
});
