import { createProvider } from '@gatehouse/core';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import {
  API_RESOURCE,
  clientKeyPair,
  FORM_HEADERS,
  fakeClock,
  form,
  SECRETS,
  testRealm,
} from '../../../test/support/fixtures.js';
import { nodeCryptoSigner } from './node-crypto-signer.js';

const BASE_URL = 'https://id.example.com';

describe('createProvider with nodeCryptoSigner', async () => {
  const clock = fakeClock();
  const provider = createProvider({
    baseUrl: BASE_URL,
    realms: [testRealm(await clientKeyPair())],
    signer: nodeCryptoSigner(),
    now: clock.now,
  });
  afterAll(() => provider.close());

  it('issues an access token that verifies against the realm JWKS', async () => {
    const tokenResponse = await provider.handle({
      method: 'POST',
      path: '/oauth/test/token',
      query: '',
      headers: FORM_HEADERS,
      body: form({
        grant_type: 'client_credentials',
        client_id: 'post-client',
        client_secret: SECRETS.post,
        resource: API_RESOURCE,
        scope: 'api:read',
      }),
    });
    expect(tokenResponse.status).toBe(200);
    const { access_token } = JSON.parse(tokenResponse.body ?? '') as { access_token: string };

    const jwksResponse = await provider.handle({
      method: 'GET',
      path: '/oauth/test/jwks',
      query: '',
      headers: {},
    });
    const keySet = createLocalJWKSet(JSON.parse(jwksResponse.body ?? ''));
    const { payload, protectedHeader } = await jwtVerify(access_token, keySet, {
      issuer: `${BASE_URL}/oauth/test`,
      audience: API_RESOURCE,
      typ: 'at+jwt',
      currentDate: new Date(clock.now()),
    });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({
      sub: 'post-client',
      client_id: 'post-client',
      scope: 'api:read',
    });
  });
});
