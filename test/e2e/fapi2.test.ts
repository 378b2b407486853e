import { buildServer, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import { decodeJwt, exportJWK, type GenerateKeyPairResult, generateKeyPair } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InjectBrowser } from '../server/pages-support.js';
import { signInThroughPages } from '../server/sign-in-support.js';
import { freePort } from '../support/ports.js';
import { codeRequest } from './code-request.js';

/**
 * openid-client v6 — a relying party nobody here wrote — as a FAPI 2.0 client of a realm with
 * `"profile": "fapi2"` in the standalone server, over real HTTP with server nonces required:
 * private_key_jwt (its own assertions), PAR with a DPoP proof, PKCE, the code redeemed with
 * DPoP, userinfo with proofs, and refresh, the refresh token kept rather than rotated.
 */

const REALM = 'bank';
const REDIRECT_URI = 'https://bank-app.example.com/cb';
const PASSWORD = 'alice-fapi2-password';

describe('openid-client as a FAPI 2.0 client of a fapi2 realm', () => {
  let gatehouse: Server;
  let baseUrl: string;
  let clientKey: GenerateKeyPairResult;

  beforeAll(async () => {
    clientKey = await generateKeyPair('PS256');
    const jwk = { ...(await exportJWK(clientKey.publicKey)), kid: 'bank-app-1', alg: 'PS256' };
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    gatehouse = buildServer(
      parseServerConfig({
        base_url: baseUrl,
        cookie_secret: 'fapi2-cookie-secret-0123456789abcdef0123',
        realms: [
          {
            name: REALM,
            profile: 'fapi2',
            dpop: { require_nonce: true },
            scopes: ['openid', 'profile', 'accounts'],
            clients: [
              {
                client_id: 'bank-app',
                token_endpoint_auth_method: 'private_key_jwt',
                jwks: { keys: [jwk] },
                redirect_uris: [REDIRECT_URI],
                grant_types: ['authorization_code', 'refresh_token'],
                scope: 'openid profile accounts',
                skip_consent: true,
              },
            ],
            users: [{ sub: 'alice', username: 'alice', password: PASSWORD, claims: { name: 'A' } }],
          },
        ],
      }),
    );
    await gatehouse.app.listen({ port, host: '127.0.0.1' });
  });
  afterAll(() => gatehouse?.app.close());

  /** openid-client's configuration of bank-app, authenticating with its private key. */
  const discoverAsBankApp = () =>
    oidc.discovery(
      new URL(`${baseUrl}/oauth/${REALM}`),
      'bank-app',
      undefined,
      oidc.PrivateKeyJwt(clientKey.privateKey),
      { execute: [oidc.allowInsecureRequests] },
    );

  it('pushes, signs in, redeems and refreshes with DPoP, as the profile asks', async () => {
    const config = await discoverAsBankApp();
    expect(config.serverMetadata()).toMatchObject({
      require_pushed_authorization_requests: true,
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
    });
    const dpop = oidc.getDPoPHandle(config, await oidc.randomDPoPKeyPair('ES256'));
    const request = await codeRequest(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid accounts',
    });
    const url = await oidc.buildAuthorizationUrlWithPAR(config, request.parameters, { DPoP: dpop });
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const callback = await signInThroughPages(new InjectBrowser(gatehouse.app, baseUrl), url.href, {
      username: 'alice',
      password: PASSWORD,
    });
    expect(callback.searchParams.get('iss')).toBe(config.serverMetadata().issuer);

    const tokens = await request.redeem(callback, { DPoP: dpop });
    expect(tokens.token_type).toBe('dpop');
    const jkt = await dpop.calculateThumbprint();
    expect(decodeJwt(tokens.access_token).cnf).toEqual({ jkt });
    expect(decodeJwt(tokens.id_token ?? '')).toMatchObject({ sub: 'alice', aud: 'bank-app' });
    const claims = await oidc.fetchUserInfo(config, tokens.access_token, 'alice', { DPoP: dpop });
    expect(claims.sub).toBe('alice');

    const refreshToken = tokens.refresh_token ?? '';
    for (let refresh = 0; refresh < 2; refresh++) {
      const refreshed = await oidc.refreshTokenGrant(config, refreshToken, undefined, {
        DPoP: dpop,
      });
      expect(refreshed.token_type).toBe('dpop');
      expect(refreshed.refresh_token).toBeUndefined();
    }
  });

  it('is refused a token without DPoP, and a request that skips PAR', async () => {
    const config = await discoverAsBankApp();
    await expect(oidc.refreshTokenGrant(config, 'no-such-refresh-token')).rejects.toMatchObject({
      error: 'invalid_dpop_proof',
    });
    const direct = oidc.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const answer = await new InjectBrowser(gatehouse.app, baseUrl).get(direct.href);
    const location = new URL(String(answer.headers.location));
    expect(location.searchParams.get('error')).toBe('invalid_request');
  });
});
