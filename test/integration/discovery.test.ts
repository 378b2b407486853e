import { beforeAll, describe, expect, it } from 'vitest';
import { createHarness, endpointPath, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ realm: { signing_alg: 'EdDSA' } });
});

const DISCOVERY = endpointPath('.well-known/openid-configuration');

describe('discovery', () => {
  it('publishes endpoint URLs built from the configured base URL, whatever the Host says', async () => {
    const response = await h.get(DISCOVERY, {
      host: 'evil.example',
      'x-forwarded-host': 'evil.example',
    });
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const issuer = h.issuer();
    expect(response.json()).toMatchObject({
      issuer,
      jwks_uri: `${issuer}/jwks`,
      token_endpoint: `${issuer}/token`,
      introspection_endpoint: `${issuer}/introspect`,
      revocation_endpoint: `${issuer}/revoke`,
      grant_types_supported: expect.arrayContaining(['client_credentials']),
      id_token_signing_alg_values_supported: ['EdDSA', 'RS256'],
    });
    expect(response.body).not.toContain('evil.example');
  });

  it('publishes a key of every ID token algorithm it advertises in the first JWKS answer, before any client needs one', async () => {
    const fresh = await createHarness({ realm: { signing_alg: 'EdDSA' } });
    const advertised = (await fresh.get(DISCOVERY)).json().id_token_signing_alg_values_supported;
    const published = (await fresh.get(endpointPath('jwks'))).json().keys as { alg: string }[];
    expect(published.map((key) => key.alg)).toEqual(advertised);
  });

  it('advertises back-channel and front-channel logout, with the session (sid) in both', async () => {
    expect((await h.get(DISCOVERY)).json()).toMatchObject({
      end_session_endpoint: `${h.issuer()}/logout`,
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
      frontchannel_logout_supported: true,
      frontchannel_logout_session_supported: true,
    });
  });

  const authenticating = [
    'client_secret_basic',
    'client_secret_post',
    'client_secret_jwt',
    'private_key_jwt',
  ];
  it.each([
    ['token', [...authenticating, 'none']],
    ['revocation', [...authenticating, 'none']],
    // RFC 7662 §2.1: introspection needs a caller that authenticates.
    ['introspection', authenticating],
  ])('lists the client authentication methods of the %s endpoint', async (endpoint, methods) => {
    const metadata = (await h.get(DISCOVERY)).json();
    expect(metadata[`${endpoint}_endpoint_auth_methods_supported`]).toEqual(methods);
    const algorithms = metadata[`${endpoint}_endpoint_auth_signing_alg_values_supported`];
    expect(algorithms).toEqual(expect.arrayContaining(['HS256', 'ES256', 'RS256', 'EdDSA']));
    expect(algorithms).not.toContain('none');
  });

  it('its token_endpoint is where tokens are issued', async () => {
    const tokenUrl = new URL((await h.get(DISCOVERY)).json().token_endpoint as string);
    const credentials = await h.credentialsOf('post-client');
    const response = await h.post(tokenUrl.pathname, {
      grant_type: 'client_credentials',
      ...credentials.fields,
    });
    expect(response.status).toBe(200);
  });
});

describe('JWKS', () => {
  it('publishes only the public half of each signing key, with kid, alg and use', async () => {
    const response = await h.get(endpointPath('jwks'));
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/jwk-set+json; charset=utf-8');
    const { keys } = response.json() as { keys: Record<string, unknown>[] };
    expect(keys).toEqual([
      {
        kty: 'OKP',
        crv: 'Ed25519',
        x: expect.any(String),
        kid: expect.any(String),
        alg: 'EdDSA',
        use: 'sig',
      },
      {
        kty: 'RSA',
        n: expect.any(String),
        e: 'AQAB',
        kid: expect.any(String),
        alg: 'RS256',
        use: 'sig',
      },
    ]);
  });
});
