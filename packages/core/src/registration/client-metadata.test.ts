import { describe, expect, it } from 'vitest';
import { registrationSchema } from '../config/registration.js';
import { OAuthError } from '../errors/oauth-error.js';
import { createProvider } from '../provider.js';
import type { Realm } from '../realms/realm.js';
import { echoedMetadata, registeredClientConfig } from './client-metadata.js';

const REDIRECT = 'https://app.example.org/cb';
const SCOPES = ['openid', 'profile', 'mcp:tools'];

async function realm(): Promise<Realm> {
  const provider = createProvider({
    baseUrl: 'https://id.example.com',
    realms: [{ name: 'r', scopes: SCOPES, registration: { open: true } }],
  });
  const found = await provider.realm('r');
  if (!found) throw new Error('no realm');
  return found;
}

const policy = (settings: Record<string, unknown> = {}) =>
  registrationSchema.parse({ open: true, ...settings });

const credentials = {
  clientId: 'registered-id',
  clientSecret: 'a-secret-of-the-provider-0123456789',
};

async function outcome(metadata: unknown, settings: Record<string, unknown> = {}) {
  try {
    return {
      config: registeredClientConfig(metadata, await realm(), policy(settings), credentials),
    };
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return { error: error.code, description: error.description ?? '' };
  }
}

describe('registeredClientConfig', () => {
  it('applies RFC 7591 defaults, the realm scopes, PKCE and consent, and ignores unknown members', async () => {
    const { config } = await outcome({
      redirect_uris: [REDIRECT],
      logo_uri: 'https://x',
      skip_consent: true,
    });
    expect(config).toMatchObject({
      client_id: 'registered-id',
      client_secret: credentials.clientSecret,
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      scope: 'openid profile mcp:tools',
      require_pkce: true,
      skip_consent: false,
    });
    expect(config).not.toHaveProperty('logo_uri');
    expect(config && echoedMetadata(config)).not.toHaveProperty('client_secret');
  });

  it('gives no secret to a public client, and takes null as absent (RFC 7592 §2.2)', async () => {
    const { config } = await outcome({
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: 'none',
      client_name: null,
    });
    expect(config?.client_secret).toBeUndefined();
    expect(config?.client_name).toBeUndefined();
  });

  it('gives every offered scope for all_offered, still refusing a scope outside them', async () => {
    const asked = { redirect_uris: [REDIRECT], scope: 'mcp:tools' };
    expect((await outcome(asked)).config?.scope).toBe('mcp:tools');
    const widened = await outcome(asked, { registered_scope: 'all_offered' });
    expect(widened.config?.scope).toBe('openid profile mcp:tools');
    const offered = { registered_scope: 'all_offered', scopes: ['openid', 'mcp:tools'] };
    expect((await outcome(asked, offered)).config?.scope).toBe('openid mcp:tools');
    const outside = await outcome({ ...asked, scope: 'profile' }, offered);
    expect(outside).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it.each([
    ['a body that is no object', [REDIRECT], {}, 'invalid_client_metadata', 'JSON object'],
    ['no redirect URI for the code grant', {}, {}, 'invalid_redirect_uri', 'at least one URI'],
    ['a fragment', { redirect_uris: [`${REDIRECT}#x`] }, {}, 'invalid_redirect_uri', 'fragment'],
    [
      'plain http to a host',
      { redirect_uris: ['http://app.example.org/cb'] },
      {},
      'invalid_redirect_uri',
      'must be https',
    ],
    [
      'plain http for a native app not on loopback',
      { redirect_uris: ['http://app.example.org/cb'], application_type: 'native' },
      {},
      'invalid_redirect_uri',
      'loopback URI',
    ],
    [
      'a private-use scheme not allowed',
      { redirect_uris: ['com.example.app:/cb'] },
      {},
      'invalid_redirect_uri',
      'scheme',
    ],
    [
      'a script scheme',
      { redirect_uris: ['javascript:alert(1)'] },
      { redirect_uri_schemes: ['javascript'] },
      'invalid_redirect_uri',
      'javascript:',
    ],
    [
      'a grant outside the policy',
      { redirect_uris: [REDIRECT], grant_types: ['client_credentials'] },
      {},
      'invalid_client_metadata',
      'not offered',
    ],
    [
      'an unknown grant',
      { redirect_uris: [REDIRECT], grant_types: ['password'] },
      {},
      'invalid_client_metadata',
      'grant_types[0]',
    ],
    [
      'code without its grant',
      { redirect_uris: [REDIRECT], grant_types: ['refresh_token'] },
      {},
      'invalid_client_metadata',
      'needs the authorization_code grant',
    ],
    [
      'an implicit response type',
      { redirect_uris: [REDIRECT], response_types: ['code id_token token'] },
      {},
      'invalid_client_metadata',
      'implicit',
    ],
    [
      'a method outside the policy',
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' },
      { token_endpoint_auth_methods: ['private_key_jwt'] },
      'invalid_client_metadata',
      'must be one of private_key_jwt',
    ],
    [
      'client_secret_jwt',
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_jwt' },
      {},
      'invalid_client_metadata',
      'digest',
    ],
    [
      'private_key_jwt without keys',
      { redirect_uris: [REDIRECT], token_endpoint_auth_method: 'private_key_jwt' },
      {},
      'invalid_client_metadata',
      'jwks',
    ],
    [
      'a private JWK',
      {
        redirect_uris: [REDIRECT],
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: {
          keys: [
            { kty: 'EC', crv: 'P-256', x: 'A'.repeat(43), y: 'A'.repeat(43), d: 'A'.repeat(43) },
          ],
        },
      },
      {},
      'invalid_client_metadata',
      'public key',
    ],
    [
      'a scope outside the policy',
      { redirect_uris: [REDIRECT], scope: 'openid mcp:tools' },
      { scopes: ['openid'] },
      'invalid_client_metadata',
      'mcp:tools',
    ],
    [
      'an ID token algorithm the realm does not sign with',
      { redirect_uris: [REDIRECT], id_token_signed_response_alg: 'PS512' },
      {},
      'invalid_client_metadata',
      'id_token_signed_response_alg',
    ],
    [
      'a client_name with a bidirectional override',
      { redirect_uris: [REDIRECT], client_name: 'Bank\u202E' },
      {},
      'invalid_client_metadata',
      'control or formatting',
    ],
    [
      'an application type of its own',
      { redirect_uris: [REDIRECT], application_type: 'desktop' },
      {},
      'invalid_client_metadata',
      'application_type',
    ],
  ])('refuses %s', async (_case, metadata, settings, error, description) => {
    const refused = await outcome(metadata, settings);
    expect(refused).toMatchObject({ error });
    expect(refused.description).toContain(description);
  });

  it('takes a private-use scheme for a native app when the policy lists it', async () => {
    const { config } = await outcome(
      {
        redirect_uris: ['com.example.app:/cb'],
        application_type: 'native',
        token_endpoint_auth_method: 'none',
      },
      { redirect_uri_schemes: ['https', 'com.example.app'] },
    );
    expect(config?.redirect_uris).toEqual(['com.example.app:/cb']);
  });
});
