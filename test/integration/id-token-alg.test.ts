import { createHash } from 'node:crypto';
import { ConfigError } from '@gatehouse-oidc/core';
import { createLocalJWKSet, decodeProtectedHeader, type JWK, jwtVerify } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, CODE_VERIFIER, clientParams } from './browser.js';
import { createHarness, endpointPath, type Harness, TOKEN } from './harness.js';

const RS_SECRET = 'rs-app-secret-0123456789abcdef';

let h: Harness;
let b: ReturnType<typeof browser>;
beforeEach(async () => {
  h = await createHarness({
    extraClients: [
      {
        client_id: 'rs-app',
        client_secret: RS_SECRET,
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uris: [WEB_REDIRECT_URI],
        response_types: ['code', 'id_token token', 'code id_token'],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'openid profile',
        skip_consent: true,
        id_token_signed_response_alg: 'RS256',
      },
    ],
  });
  b = browser(h);
});

const jwks = async (harness: Harness) =>
  (await harness.get(endpointPath('jwks'))).json().keys as JWK[];

/** Verifies against the realm's published JWKS, as a relying party would, pinned to `alg`. */
async function verify(token: string, alg: string) {
  const { payload, protectedHeader } = await jwtVerify(
    token,
    createLocalJWKSet({ keys: await jwks(h) }),
    { algorithms: [alg], issuer: h.issuer() },
  );
  return { payload, protectedHeader };
}

/** OIDC Core §3.1.3.6: left half of the SHA-256 of the value, base64url. */
const leftHalfSha256 = (value: string) =>
  createHash('sha256').update(value).digest().subarray(0, 16).toString('base64url');

async function exchange(code: string) {
  const response = await h.post(TOKEN, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: WEB_REDIRECT_URI,
    code_verifier: CODE_VERIFIER,
    client_id: 'rs-app',
    client_secret: RS_SECRET,
  });
  expect(response.status, response.body).toBe(200);
  return response.json() as { id_token: string; access_token: string; refresh_token: string };
}

describe('id_token_signed_response_alg', () => {
  it('is offered by discovery beside the realm’s signing_alg, once for an RS256 realm', async () => {
    const metadata = (await h.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata.id_token_signing_alg_values_supported).toEqual(['ES256', 'RS256']);
    const rsRealm = await createHarness({ realm: { signing_alg: 'RS256' } });
    const rsMetadata = (await rsRealm.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(rsMetadata.id_token_signing_alg_values_supported).toEqual(['RS256']);
  });

  it('publishes an RS256 key beside the ES256 one, each pinned to its algorithm', async () => {
    const keys = await jwks(h);
    expect(keys.map((key) => [key.alg, key.kty, key.use])).toEqual([
      ['ES256', 'EC', 'sig'],
      ['RS256', 'RSA', 'sig'],
    ]);
  });

  it('signs the client’s ID tokens with RS256, from the code exchange and from refreshes', async () => {
    const { params } = clientParams(await b.signIn({ client_id: 'rs-app' }));
    const tokens = await exchange(params.code ?? '');
    const { payload, protectedHeader } = await verify(tokens.id_token, 'RS256');
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'JWT' });
    expect(payload).toMatchObject({ aud: 'rs-app', nonce: 'nonce-123' });
    expect(payload.at_hash).toBe(leftHalfSha256(tokens.access_token));
    // Access tokens keep the realm's algorithm: they are the realm's, not the client's.
    expect(decodeProtectedHeader(tokens.access_token).alg).toBe('ES256');

    const refreshed = await h.post(TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: 'rs-app',
      client_secret: RS_SECRET,
    });
    expect(decodeProtectedHeader(refreshed.json().id_token as string).alg).toBe('RS256');
  });

  it('binds front-channel ID tokens with at_hash and c_hash of the RS256 hash', async () => {
    const implicit = clientParams(
      await b.signIn({ client_id: 'rs-app', response_type: 'id_token token' }),
    ).params;
    const fromImplicit = await verify(implicit.id_token ?? '', 'RS256');
    expect(fromImplicit.payload.at_hash).toBe(leftHalfSha256(implicit.access_token ?? ''));

    const hybrid = clientParams(
      await b.authorize({ client_id: 'rs-app', response_type: 'code id_token' }),
    ).params;
    const fromHybrid = await verify(hybrid.id_token ?? '', 'RS256');
    expect(fromHybrid.payload.c_hash).toBe(leftHalfSha256(hybrid.code ?? ''));
  });

  it('leaves the other clients on the realm’s signing_alg', async () => {
    const { params } = clientParams(await b.signIn());
    const response = await h.postAs('web-app', TOKEN, {
      grant_type: 'authorization_code',
      code: params.code ?? '',
      redirect_uri: WEB_REDIRECT_URI,
      code_verifier: CODE_VERIFIER,
    });
    expect(decodeProtectedHeader(response.json().id_token as string).alg).toBe('ES256');
  });

  it('accepts an RS256 ID token back as id_token_hint at logout', async () => {
    const { params } = clientParams(await b.signIn({ client_id: 'rs-app' }));
    const { id_token } = await exchange(params.code ?? '');
    const response = await h.get(
      endpointPath('logout'),
      b.jar.header(new URL(h.issuer())),
      new URLSearchParams({ id_token_hint: id_token }).toString(),
    );
    expect(response.status).toBe(200);
    expect(response.body).toContain('You are signed out.');
  });

  it('rotates the RS256 key with the realm’s, keeping both old keys published', async () => {
    const before = (await jwks(h)).map((key) => key.kid);
    await h.provider.rotateKeys('test');
    const after = await jwks(h);
    expect(after.map((key) => key.alg).sort()).toEqual(['ES256', 'ES256', 'RS256', 'RS256']);
    expect(after.map((key) => key.kid)).toEqual(expect.arrayContaining(before));
    const { params } = clientParams(await b.signIn({ client_id: 'rs-app' }));
    const { protectedHeader } = await verify((await exchange(params.code ?? '')).id_token, 'RS256');
    expect(before).not.toContain(protectedHeader.kid);
  });

  it('must be RS256 or the realm’s signing_alg', async () => {
    const invalid = createHarness({
      extraClients: [
        {
          client_id: 'ps-app',
          token_endpoint_auth_method: 'none',
          redirect_uris: [WEB_REDIRECT_URI],
          id_token_signed_response_alg: 'PS256',
        },
      ],
    });
    await expect(invalid).rejects.toThrow(ConfigError);
    await expect(invalid).rejects.toThrow(
      "clients[8].id_token_signed_response_alg: must be RS256 or the realm's signing_alg (ES256)",
    );
  });
});
