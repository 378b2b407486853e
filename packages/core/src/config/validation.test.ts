import { beforeAll, describe, expect, it } from 'vitest';
import { type ClientKeyPair, clientKeyPair, testRealm } from '../../test-support/fixtures.js';
import { staticRealmSource, validateRealm } from '../realms/realm-source.js';
import { ConfigError, type ConfigIssue } from './issues.js';

type Json = Record<string, unknown>;

/** A deep copy of the test realm that a case edits freely before it is validated. */
interface Draft {
  realm: Json;
  client(index: number): Json;
  resource(index: number): Json;
}

interface Case {
  name: string;
  mutate: (draft: Draft) => void;
  /** Every issue the mutation must produce, and no other: path exactly, message by fragment. */
  issues: ReadonlyArray<readonly [path: string, messageFragment: string]>;
}

let keys: ClientKeyPair;
beforeAll(async () => {
  keys = await clientKeyPair();
});

function draftRealm(): Draft {
  const realm = structuredClone(testRealm(keys)) as Json;
  const item = (field: string, index: number) => {
    const value = (realm[field] as Json[])[index];
    if (!value) throw new Error(`the test realm has no ${field}[${index}]`);
    return value;
  };
  return {
    realm,
    client: (index) => item('clients', index),
    resource: (index) => item('resources', index),
  };
}

/** The issues of validating `inputs` as the `realms` list of a configuration file. */
function issuesOf(inputs: unknown[]): readonly ConfigIssue[] {
  try {
    staticRealmSource(inputs, 'https://id.example.com');
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  return [];
}

function expectCase({ mutate, issues }: Case): void {
  const draft = draftRealm();
  mutate(draft);
  const expected = issues.map(([path, fragment]) => ({
    path,
    message: expect.stringContaining(fragment),
  }));
  expect(issuesOf([draft.realm])).toEqual(expected);
}

// Client indices of the test realm: 0 post-client, 1 basic-client, 2 jwt-client, 3 key-client,
// 4 native-client, 5 api, 6 other-api. Resources: 0 api, 1 other-api.
const at = (client: number, field: string) => `realms[0].clients[${client}].${field}`;

describe('the test realm', () => {
  it('is valid, so every case below fails only because of its mutation', () => {
    expect(issuesOf([draftRealm().realm])).toEqual([]);
  });
});

describe('client rules (client-rules.ts)', () => {
  const cases: Case[] = [
    {
      name: 'a secret method without a secret',
      mutate: (d) => delete d.client(0).client_secret,
      issues: [[at(0, 'client_secret'), 'is required for client_secret_post']],
    },
    {
      name: 'client_secret_jwt without a secret (reported once, not also as too short)',
      mutate: (d) => delete d.client(2).client_secret,
      issues: [[at(2, 'client_secret'), 'is required for client_secret_jwt']],
    },
    {
      name: 'a secret on a private_key_jwt client',
      mutate: (d) => {
        d.client(3).client_secret = 'a-secret-0123456789';
      },
      issues: [[at(3, 'client_secret'), 'must not be set for private_key_jwt']],
    },
    {
      name: 'a secret on a public client',
      mutate: (d) => {
        d.client(4).client_secret = 'a-secret-0123456789';
      },
      issues: [[at(4, 'client_secret'), 'must not be set for none']],
    },
    {
      name: 'a client_secret_jwt secret shorter than HS256 needs',
      mutate: (d) => {
        d.client(2).client_secret = 'only-31-characters-long-0123456';
      },
      issues: [[at(2, 'client_secret'), 'must be at least 32 characters for client_secret_jwt']],
    },
    {
      name: 'a previous secret without its expiry',
      mutate: (d) => {
        d.client(0).previous_client_secret = 'the-previous-secret-0123456789';
      },
      issues: [
        [at(0, 'previous_client_secret_expires_at'), 'is required with previous_client_secret'],
      ],
    },
    {
      name: 'an expiry without a previous secret',
      mutate: (d) => {
        d.client(0).previous_client_secret_expires_at = 1_900_000_000;
      },
      issues: [[at(0, 'previous_client_secret_expires_at'), 'needs previous_client_secret']],
    },
    {
      name: 'a previous client_secret_jwt secret shorter than HS256 needs',
      mutate: (d) => {
        d.client(2).previous_client_secret = 'only-31-characters-long-0123456';
        d.client(2).previous_client_secret_expires_at = 1_900_000_000;
      },
      issues: [
        [at(2, 'previous_client_secret'), 'must be at least 32 characters for client_secret_jwt'],
      ],
    },
    {
      name: 'private_key_jwt without keys',
      mutate: (d) => delete d.client(3).jwks,
      issues: [[at(3, 'jwks'), 'or jwks_uri is required for private_key_jwt']],
    },
    {
      name: 'private_key_jwt with a jwks_uri instead of jwks',
      mutate: (d) => {
        delete d.client(3).jwks;
        d.client(3).jwks_uri = 'https://client.example.com/jwks';
      },
      issues: [],
    },
    {
      name: 'keys on a secret client (they verify its request objects)',
      mutate: (d) => {
        d.client(0).jwks = d.client(3).jwks;
      },
      issues: [],
    },
    {
      name: 'a jwks_uri on a public client (it verifies its request objects)',
      mutate: (d) => {
        d.client(4).jwks_uri = 'https://client.example.com/jwks';
      },
      issues: [],
    },
    {
      name: 'both jwks and jwks_uri',
      mutate: (d) => {
        d.client(3).jwks_uri = 'https://client.example.com/jwks';
      },
      issues: [[at(3, 'jwks_uri'), 'must not be set together with jwks']],
    },
    {
      name: 'an asymmetric assertion algorithm for client_secret_jwt',
      mutate: (d) => {
        d.client(2).token_endpoint_auth_signing_alg = 'ES256';
      },
      issues: [[at(2, 'token_endpoint_auth_signing_alg'), 'must be an HMAC algorithm']],
    },
    {
      name: 'an HMAC assertion algorithm for private_key_jwt',
      mutate: (d) => {
        d.client(3).token_endpoint_auth_signing_alg = 'HS256';
      },
      issues: [[at(3, 'token_endpoint_auth_signing_alg'), 'must be an asymmetric algorithm']],
    },
    {
      name: 'an assertion algorithm for a method without assertions',
      mutate: (d) => {
        d.client(0).token_endpoint_auth_signing_alg = 'HS256';
      },
      issues: [
        [
          at(0, 'token_endpoint_auth_signing_alg'),
          'is only used with client_secret_jwt and private_key_jwt',
        ],
      ],
    },
    {
      name: 'a public client without PKCE (RFC 9700 §2.1.1)',
      mutate: (d) => {
        d.client(4).require_pkce = false;
      },
      issues: [[at(4, 'require_pkce'), 'must be true for a public client']],
    },
    {
      name: 'client_credentials for a native application',
      mutate: (d) => {
        d.client(4).grant_types = ['client_credentials'];
      },
      issues: [
        [at(4, 'grant_types'), 'client_credentials is for web applications only'],
        [at(4, 'grant_types'), 'response_type "code" needs the authorization_code grant'],
      ],
    },
    {
      name: 'client_credentials for a web client that does not authenticate',
      mutate: (d) => {
        Object.assign(d.client(4), {
          application_type: 'web',
          grant_types: ['client_credentials'],
        });
      },
      issues: [
        [at(4, 'grant_types'), 'client_credentials needs a client that authenticates'],
        [at(4, 'grant_types'), 'response_type "code" needs the authorization_code grant'],
      ],
    },
    {
      name: 'the authorization_code grant without redirect URIs',
      mutate: (d) => {
        d.client(5).grant_types = ['authorization_code', 'refresh_token'];
      },
      issues: [
        [at(5, 'redirect_uris'), 'must list at least one URI for the authorization_code grant'],
      ],
    },
    {
      name: 'the implicit grant without redirect URIs',
      mutate: (d) => {
        d.client(6).grant_types = ['implicit'];
      },
      issues: [[at(6, 'redirect_uris'), 'must list at least one URI for the implicit grant']],
    },
    {
      name: 'a web client redirecting to plain http on another host',
      mutate: (d) => {
        Object.assign(d.client(0), {
          grant_types: ['authorization_code'],
          redirect_uris: [
            'https://app.example.com/cb',
            'http://app.example.com/cb',
            'http://127.0.0.1:8080/cb',
            'http://[::1]/cb',
            'http://localhost:3000/cb',
            'HTTP://10.0.0.1/cb',
          ],
        });
      },
      issues: [
        [
          at(0, 'redirect_uris[1]'),
          'must be https for a web client (plain http only to localhost, 127.0.0.1 or [::1])',
        ],
        [
          at(0, 'redirect_uris[5]'),
          'must be https for a web client (plain http only to localhost, 127.0.0.1 or [::1])',
        ],
      ],
    },
    {
      name: 'a native client redirecting to plain http that is no loopback URI',
      mutate: (d) => {
        d.client(4).redirect_uris = [
          'com.example.app:/cb',
          'http://127.0.0.1/cb',
          'http://[::1]:8400/cb?app=cli',
          'http://localhost/',
          'https://app.example.com/cb',
          'http://app.example.com/cb',
          'http://user@127.0.0.1/cb',
          'HTTP://127.0.0.1/cb',
          'http://10.0.0.1/cb',
        ];
      },
      issues: [5, 6, 7, 8].map((index) => [
        at(4, `redirect_uris[${index}]`),
        'must be a loopback URI for a native client when it is plain http',
      ]),
    },
    {
      name: "a default scope outside the client's scope",
      mutate: (d) => {
        d.client(0).default_scope = 'api:read openid';
      },
      issues: [[at(0, 'default_scope'), `"openid" is not in the client's scope`]],
    },
  ];
  it.each(cases)('$name', expectCase);
});

describe('realm rules (realm-rules.ts)', () => {
  const cases: Case[] = [
    {
      name: 'opaque access tokens that are not stored',
      mutate: (d) =>
        Object.assign(d.realm, {
          access_token_format: 'opaque',
          access_token_retention_policy: 'no-store',
        }),
      issues: [
        [
          'realms[0].access_token_format',
          'opaque access tokens need access_token_retention_policy "store"',
        ],
      ],
    },
    {
      name: 'a duplicate scope',
      mutate: (d) => (d.realm.scopes as string[]).push('profile'),
      issues: [['realms[0].scopes[6]', 'is a duplicate']],
    },
    {
      name: 'a duplicate client_id',
      mutate: (d) => {
        d.client(1).client_id = 'post-client';
      },
      issues: [[at(1, 'client_id'), 'duplicate client_id "post-client"']],
    },
    {
      name: 'a client scope the realm does not declare',
      mutate: (d) => {
        d.client(0).scope = 'api:read admin';
      },
      issues: [[at(0, 'scope'), 'names unknown scope "admin"']],
    },
    {
      name: 'a default scope the realm does not declare',
      mutate: (d) => {
        Object.assign(d.client(4), { scope: 'openid admin', default_scope: 'admin' });
      },
      issues: [
        [at(4, 'scope'), 'names unknown scope "admin"'],
        [at(4, 'default_scope'), 'names unknown scope "admin"'],
      ],
    },
    {
      name: 'a duplicate resource',
      mutate: (d) => {
        d.resource(1).uri = 'https://api.example.com';
      },
      issues: [['realms[0].resources[1].uri', 'duplicate resource "https://api.example.com"']],
    },
    {
      name: 'a resource whose client does not exist',
      mutate: (d) => {
        d.resource(0).client_id = 'ghost';
      },
      issues: [['realms[0].resources[0].client_id', 'names unknown client "ghost"']],
    },
    {
      name: 'a resource whose client is public (introspection needs authentication)',
      mutate: (d) => {
        d.resource(0).client_id = 'native-client';
      },
      issues: [['realms[0].resources[0].client_id', 'names public client "native-client"']],
    },
    {
      name: "a resource URI equal to a client_id (the audience of that client's own tokens)",
      mutate: (d) => {
        d.client(0).client_id = 'https://api.example.com';
      },
      issues: [['realms[0].resources[0].uri', 'must not equal a client_id']],
    },
    {
      name: 'a resource scope the realm does not declare',
      mutate: (d) => {
        d.resource(0).scopes = ['api:read', 'api:delete'];
      },
      issues: [['realms[0].resources[0].scopes[1]', 'names unknown scope "api:delete"']],
    },
  ];
  it.each(cases)('$name', expectCase);
});

describe('shapes and types (realm.ts, client.ts, resource.ts, primitives.ts)', () => {
  const cases: Case[] = [
    {
      name: 'an unknown realm key',
      mutate: (d) => {
        d.realm.acess_token_ttl = 60;
      },
      issues: [['realms[0]', '"acess_token_ttl"']],
    },
    {
      name: 'an unknown client key',
      mutate: (d) => {
        d.client(4).redirect_uri = 'https://app.example.com/cb';
      },
      issues: [['realms[0].clients[4]', '"redirect_uri"']],
    },
    {
      name: 'an unknown resource key',
      mutate: (d) => {
        d.resource(0).audience = 'api';
      },
      issues: [['realms[0].resources[0]', '"audience"']],
    },
    {
      name: 'an unknown member beside the keys of a jwks',
      mutate: (d) => {
        (d.client(3).jwks as Json).extra = true;
      },
      issues: [[at(3, 'jwks'), '"extra"']],
    },
    {
      name: 'a realm name with a slash',
      mutate: (d) => {
        d.realm.name = 'a/b';
      },
      issues: [['realms[0].name', 'must be 1 to 64 letters, digits']],
    },
    {
      name: 'a realm name of 65 characters',
      mutate: (d) => {
        d.realm.name = 'r'.repeat(65);
      },
      issues: [['realms[0].name', 'must be 1 to 64 letters, digits']],
    },
    {
      name: 'a lifetime given as a string',
      mutate: (d) => {
        d.realm.access_token_ttl = '600';
      },
      issues: [['realms[0].access_token_ttl', 'expected number']],
    },
    {
      name: 'a fractional lifetime',
      mutate: (d) => {
        d.realm.id_token_ttl = 1.5;
      },
      issues: [['realms[0].id_token_ttl', 'must be a whole number of seconds']],
    },
    {
      name: 'a zero lifetime',
      mutate: (d) => {
        d.realm.refresh_token_ttl = 0;
      },
      issues: [['realms[0].refresh_token_ttl', '>=1']],
    },
    {
      name: 'a negative refresh token rotation grace',
      mutate: (d) => {
        d.realm.refresh_token_rotation_grace = -1;
      },
      issues: [['realms[0].refresh_token_rotation_grace', '>=0']],
    },
    {
      name: 'a fractional refresh token rotation grace',
      mutate: (d) => {
        d.realm.refresh_token_rotation_grace = 2.5;
      },
      issues: [['realms[0].refresh_token_rotation_grace', 'must be a whole number of seconds']],
    },
    {
      name: 'a refresh token rotation grace longer than a minute',
      mutate: (d) => {
        d.realm.refresh_token_rotation_grace = 61;
      },
      issues: [['realms[0].refresh_token_rotation_grace', '<=60']],
    },
    {
      name: 'a key rotation period shorter than a day',
      mutate: (d) => {
        d.realm.key_rotation_seconds = 86_399;
      },
      issues: [['realms[0].key_rotation_seconds', 'must be at least 86400 seconds (one day)']],
    },
    {
      name: 'a fractional key rotation period',
      mutate: (d) => {
        d.realm.key_rotation_seconds = 86_400.5;
      },
      issues: [['realms[0].key_rotation_seconds', 'must be a whole number of seconds']],
    },
    {
      name: 'an authorization code living longer than ten minutes',
      mutate: (d) => {
        d.realm.authorization_code_ttl = 601;
      },
      issues: [['realms[0].authorization_code_ttl', '<=600']],
    },
    {
      name: 'an access token living longer than a day',
      mutate: (d) => {
        d.realm.access_token_ttl = 86_401;
      },
      issues: [['realms[0].access_token_ttl', '<=86400']],
    },
    {
      name: 'an unknown access token format',
      mutate: (d) => {
        d.realm.access_token_format = 'paseto';
      },
      issues: [['realms[0].access_token_format', '"jwt"|"opaque"']],
    },
    {
      name: 'an unknown retention policy',
      mutate: (d) => {
        d.realm.access_token_retention_policy = 'forever';
      },
      issues: [['realms[0].access_token_retention_policy', '"store"|"no-store"']],
    },
    {
      name: 'an inactive introspection status other than 200 and 400',
      mutate: (d) => {
        d.realm.introspection_inactive_status = 404;
      },
      issues: [['realms[0].introspection_inactive_status', 'Invalid input']],
    },
    {
      name: 'a symmetric realm signing algorithm',
      mutate: (d) => {
        d.realm.signing_alg = 'HS256';
      },
      issues: [['realms[0].signing_alg', '"ES256"|"EdDSA"|"RS256"|"PS256"']],
    },
    {
      name: 'a realm scope with a space',
      mutate: (d) => (d.realm.scopes as string[]).push('api read'),
      issues: [['realms[0].scopes[6]', 'must be a scope token']],
    },
    {
      name: 'scopes that are not a list',
      mutate: (d) => {
        d.realm.scopes = 'openid profile';
      },
      issues: [['realms[0].scopes', 'expected array']],
    },
    {
      name: 'a client_id with a space',
      mutate: (d) => {
        d.client(1).client_id = 'basic client';
      },
      issues: [[at(1, 'client_id'), 'must be 1 to 128 printable ASCII characters']],
    },
    {
      name: 'an empty client_id',
      mutate: (d) => {
        d.client(1).client_id = '';
      },
      issues: [[at(1, 'client_id'), 'must be 1 to 128 printable ASCII characters']],
    },
    {
      name: 'a client secret shorter than 16 characters',
      mutate: (d) => {
        d.client(0).client_secret = 'short';
      },
      issues: [[at(0, 'client_secret'), 'must be at least 16 characters']],
    },
    {
      name: 'a relative redirect URI',
      mutate: (d) => {
        d.client(1).redirect_uris = ['/callback'];
      },
      issues: [[at(1, 'redirect_uris[0]'), 'must be an absolute URL']],
    },
    {
      name: 'a redirect URI with a fragment',
      mutate: (d) => {
        d.client(4).redirect_uris = ['com.example.app:/cb', 'https://app.example.com/cb#top'];
      },
      issues: [[at(4, 'redirect_uris[1]'), 'must not contain a fragment']],
    },
    {
      name: 'a javascript: redirect URI',
      mutate: (d) => {
        d.client(4).redirect_uris = ['com.example.app:/cb', 'javascript:alert(1)//'];
      },
      issues: [[at(4, 'redirect_uris[1]'), 'must not be a javascript:']],
    },
    {
      name: 'a relative post-logout redirect URI',
      mutate: (d) => {
        d.client(4).post_logout_redirect_uris = ['bye'];
      },
      issues: [[at(4, 'post_logout_redirect_uris[0]'), 'must be an absolute URL']],
    },
    {
      name: 'an unknown authentication method',
      mutate: (d) => {
        d.client(0).token_endpoint_auth_method = 'tls_client_auth';
      },
      issues: [[at(0, 'token_endpoint_auth_method'), 'Invalid option']],
    },
    {
      name: 'an unknown application type',
      mutate: (d) => {
        d.client(4).application_type = 'desktop';
      },
      issues: [[at(4, 'application_type'), '"web"|"native"']],
    },
    {
      name: 'an unknown response type',
      mutate: (d) => {
        d.client(4).response_types = ['code', 'token'];
      },
      issues: [[at(4, 'response_types[1]'), 'Invalid option']],
    },
    {
      name: 'an unknown response mode',
      mutate: (d) => {
        d.client(4).response_modes = ['web_message'];
      },
      issues: [[at(4, 'response_modes[0]'), '"query"|"fragment"|"form_post"']],
    },
    {
      name: 'an unknown grant type',
      mutate: (d) => {
        d.client(0).grant_types = ['password'];
      },
      issues: [[at(0, 'grant_types[0]'), 'Invalid option']],
    },
    {
      name: 'a scope string with a quote',
      mutate: (d) => {
        d.client(4).scope = 'openid "profile"';
      },
      issues: [[at(4, 'scope'), 'must be space-separated scope tokens']],
    },
    {
      name: 'a scope string with two spaces in a row',
      mutate: (d) => {
        d.client(4).default_scope = 'openid  profile';
      },
      issues: [[at(4, 'default_scope'), 'must be space-separated scope tokens']],
    },
    {
      name: 'require_pkce given as a string',
      mutate: (d) => {
        d.client(4).require_pkce = 'yes';
      },
      issues: [[at(4, 'require_pkce'), 'expected boolean']],
    },
    {
      name: 'a private key in a client JWKS',
      mutate: (d) => {
        const jwks = d.client(3).jwks as { keys: Json[] };
        jwks.keys = [{ ...jwks.keys[0], d: 'private-part' }];
      },
      issues: [[at(3, 'jwks.keys[0]'), 'must be a public key']],
    },
    {
      name: 'a symmetric key in a client JWKS',
      mutate: (d) => {
        d.client(3).jwks = { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] };
      },
      issues: [[at(3, 'jwks.keys[0].kty'), "Expected 'EC' | 'OKP' | 'RSA'"]],
    },
    {
      name: 'an EC key whose coordinates do not fit its curve',
      mutate: (d) => {
        d.client(3).jwks = { keys: [{ ...keys.publicJwk, x: 'AAAA' }] };
      },
      issues: [[at(3, 'jwks.keys[0]'), 'coordinates must have the length of the curve']],
    },
    {
      name: 'a private key in a client JWKS',
      mutate: (d) => {
        d.client(3).jwks = { keys: [{ ...keys.publicJwk, d: keys.publicJwk.x }] };
      },
      issues: [[at(3, 'jwks.keys[0]'), 'must be a public key (no private or symmetric members)']],
    },
    {
      name: 'an RSA key shorter than 2048 bits',
      mutate: (d) => {
        d.client(3).jwks = { keys: [{ kty: 'RSA', n: 'A'.repeat(171), e: 'AQAB' }] };
      },
      issues: [[at(3, 'jwks.keys[0].n'), 'must be a modulus of at least 2048 bits']],
    },
    {
      name: 'an RSA key without its exponent',
      mutate: (d) => {
        d.client(3).jwks = { keys: [{ kty: 'RSA', n: 'A'.repeat(342) }] };
      },
      issues: [[at(3, 'jwks.keys[0].e'), 'expected string']],
    },
    {
      name: 'a jwks_uri over plain http to another host',
      mutate: (d) => {
        delete d.client(3).jwks;
        d.client(3).jwks_uri = 'http://client.example.com/jwks';
      },
      issues: [[at(3, 'jwks_uri'), 'must be an https URL (http only on localhost)']],
    },
    {
      name: 'a backchannel_logout_uri over plain http to another host',
      mutate: (d) => {
        d.client(0).backchannel_logout_uri = 'http://client.example.com/logout';
      },
      issues: [[at(0, 'backchannel_logout_uri'), 'must be an https URL (http only on localhost)']],
    },
    {
      name: 'a frontchannel_logout_uri with a fragment',
      mutate: (d) => {
        d.client(0).frontchannel_logout_uri = 'https://client.example.com/logout#now';
      },
      issues: [[at(0, 'frontchannel_logout_uri'), 'must not contain a fragment']],
    },
    {
      name: 'a frontchannel_logout_uri that is not a URL',
      mutate: (d) => {
        d.client(0).frontchannel_logout_uri = '/logout';
      },
      issues: [[at(0, 'frontchannel_logout_uri'), 'must be an absolute URL']],
    },
    {
      name: 'an empty client JWKS',
      mutate: (d) => {
        d.client(3).jwks = { keys: [] };
      },
      issues: [[at(3, 'jwks.keys'), '>=1']],
    },
    {
      name: 'a jwks_uri that is not a URL',
      mutate: (d) => {
        delete d.client(3).jwks;
        d.client(3).jwks_uri = 'client.example.com/jwks';
      },
      issues: [[at(3, 'jwks_uri'), 'must be an absolute URL']],
    },
    {
      name: 'a resource URI that is not absolute',
      mutate: (d) => {
        d.resource(1).uri = 'other.example.com';
      },
      issues: [['realms[0].resources[1].uri', 'must be an absolute URL']],
    },
    {
      name: 'a resource URI with a fragment',
      mutate: (d) => {
        d.resource(1).uri = 'https://other.example.com/#api';
      },
      issues: [['realms[0].resources[1].uri', 'must not contain a fragment']],
    },
    {
      name: 'a resource without a client',
      mutate: (d) => delete d.resource(1).client_id,
      issues: [['realms[0].resources[1].client_id', 'expected string']],
    },
    {
      name: 'several shape problems in one realm, all reported',
      mutate: (d) => {
        Object.assign(d.realm, { access_token_ttl: -1, signing_alg: 'none' });
        d.client(2).client_secret = 7;
      },
      issues: [
        ['realms[0].access_token_ttl', '>=1'],
        ['realms[0].signing_alg', 'Invalid option'],
        [at(2, 'client_secret'), 'expected string'],
      ],
    },
    {
      name: 'several rule problems in one realm, all reported',
      mutate: (d) => {
        delete d.client(0).client_secret;
        d.client(5).scope = 'openid admin';
        d.resource(1).client_id = 'ghost';
      },
      issues: [
        [at(0, 'client_secret'), 'is required for client_secret_post'],
        [at(5, 'scope'), 'names unknown scope "admin"'],
        ['realms[0].resources[1].client_id', 'names unknown client "ghost"'],
      ],
    },
  ];
  it.each(cases)('$name', expectCase);

  it('rejects a realm that is not an object', () => {
    expect(issuesOf(['demo'])).toEqual([
      { path: 'realms[0]', message: expect.stringContaining('expected object') },
    ]);
  });
});

describe('every problem at once', () => {
  it('lists the problems of every realm and duplicate realm names in one ConfigError', () => {
    const unknownScope = draftRealm();
    unknownScope.client(0).scope = 'admin';
    const badShape = { name: 'shape', access_token_ttl: 'long' };
    const inputs = [{ name: 'a' }, { name: 'a' }, badShape, { ...unknownScope.realm, name: 'b' }];

    let error: unknown;
    try {
      staticRealmSource(inputs, 'https://id.example.com');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { issues, message } = error as ConfigError;
    expect(issues.map((issue) => issue.path)).toEqual([
      'realms[1].name',
      'realms[2].access_token_ttl',
      'realms[3].clients[0].scope',
    ]);
    expect(issues[0]?.message).toBe('duplicate realm "a"');
    for (const issue of issues) expect(message).toContain(`${issue.path}: ${issue.message}`);
  });
});

describe('defaults', () => {
  it('fills every optional realm and client field', () => {
    const realm = validateRealm({
      name: 'demo',
      clients: [
        {
          client_id: 'app',
          client_secret: 'a-secret-0123456789',
          redirect_uris: ['https://app.example.com/cb'],
        },
      ],
    });
    expect(realm).toEqual({
      name: 'demo',
      access_token_ttl: 600,
      id_token_ttl: 3600,
      refresh_token_ttl: 2_592_000,
      refresh_token_rotation_grace: 0,
      authorization_code_ttl: 60,
      device_code_ttl: 600,
      device_poll_interval: 5,
      session_ttl: 1_209_600,
      access_token_format: 'jwt',
      access_token_retention_policy: 'store',
      introspection_inactive_status: 400,
      signing_alg: 'ES256',
      error_codes: 'interface',
      request_object_signing_alg_values_supported: [],
      require_pushed_authorization_requests: false,
      dpop: { require_nonce: false },
      scopes: ['openid'],
      resources: [],
      clients: [
        {
          client_id: 'app',
          client_secret: 'a-secret-0123456789',
          application_type: 'web',
          token_endpoint_auth_method: 'client_secret_basic',
          redirect_uris: ['https://app.example.com/cb'],
          post_logout_redirect_uris: [],
          backchannel_logout_session_required: false,
          frontchannel_logout_session_required: false,
          response_types: ['code'],
          response_modes: ['query', 'fragment', 'form_post'],
          grant_types: ['authorization_code'],
          backchannel_token_delivery_mode: 'poll',
          scope: 'openid',
          require_pkce: true,
          require_pushed_authorization_requests: false,
          claims_in_id_token: false,
          dpop_bound_access_tokens: false,
          skip_consent: false,
        },
      ],
      trusted_issuers: [],
    });
  });

  it('gives a resource no scopes by default', () => {
    const realm = validateRealm({
      name: 'demo',
      clients: [{ client_id: 'api', client_secret: 'a-secret-0123456789', grant_types: [] }],
      resources: [{ uri: 'https://api.example.com', client_id: 'api' }],
    });
    expect(realm.resources[0]?.scopes).toEqual([]);
  });

  it('prefixes paths with the path it is given', () => {
    expect(() =>
      validateRealm({ name: 'demo', scopes: ['openid', 'openid'] }, 'realm "demo"'),
    ).toThrow('realm "demo".scopes[1]: is a duplicate');
  });
});

describe('the resolved configuration', () => {
  it('is frozen all the way down, while the input stays the caller’s', async () => {
    const input = testRealm(keys);
    const realm = await staticRealmSource([input], 'https://id.example.com').get('test');
    const config = realm?.config;
    if (!config) throw new Error('realm not built');

    expect(Object.isFrozen(realm)).toBe(true);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.scopes)).toBe(true);
    expect(Object.isFrozen(config.clients[4]?.redirect_uris)).toBe(true);
    expect(Object.isFrozen(config.clients[3]?.jwks?.keys[0])).toBe(true);
    expect(Object.isFrozen(config.resources[0]?.scopes)).toBe(true);
    expect(() => {
      (config as { access_token_ttl: number }).access_token_ttl = 1;
    }).toThrow(TypeError);
    expect(() => (config.scopes as string[]).push('admin')).toThrow(TypeError);
    expect(Object.isFrozen(input)).toBe(false);
    expect(Object.isFrozen(input.clients)).toBe(false);
  });
});
