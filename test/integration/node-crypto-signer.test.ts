import { nodeCryptoSigner, nodeCryptoVerifier } from '@gatehouse-oidc/node-crypto';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { expect, it, vi } from 'vitest';
import { API_RESOURCE } from '../support/fixtures.js';
import { createHarness } from './harness.js';

it('createProvider with nodeCryptoSigner issues access tokens that verify against the realm JWKS', async () => {
  const signer = nodeCryptoSigner();
  const sign = vi.spyOn(signer, 'sign');
  const h = await createHarness({ signer });
  const token = await h.issueToken('post-client', { resource: API_RESOURCE, scope: 'api:read' });

  const keySet = createLocalJWKSet((await h.get('/oauth/test/jwks')).json() as never);
  const { payload, protectedHeader } = await jwtVerify(token, keySet, {
    issuer: h.issuer(),
    audience: API_RESOURCE,
    typ: 'at+jwt',
    currentDate: new Date(h.nowSeconds() * 1000),
  });
  expect(sign).toHaveBeenCalledOnce();
  expect(protectedHeader.alg).toBe('ES256');
  expect(payload).toMatchObject({
    sub: 'post-client',
    client_id: 'post-client',
    scope: 'api:read',
  });
  await h.provider.close();
});

it('with nodeCryptoVerifier, introspection checks a JWT access token through it', async () => {
  const verifier = nodeCryptoVerifier();
  const verify = vi.spyOn(verifier, 'verify');
  const h = await createHarness({ signer: nodeCryptoSigner(), verifier });
  const token = await h.issueToken('post-client', { resource: API_RESOURCE, scope: 'api:read' });

  expect((await h.introspect('api', token)).json()).toMatchObject({
    active: true,
    client_id: 'post-client',
    scope: 'api:read',
  });
  expect(verify).toHaveBeenCalledOnce();
  // The same token with one character of its signature changed is not this realm's.
  const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
  expect((await h.introspect('api', tampered)).json()).toEqual({ active: false });
  expect(await verify.mock.results[1]?.value).toBe(false);
  await h.provider.close();
});
