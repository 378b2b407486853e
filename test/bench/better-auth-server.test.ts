import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, it as base, beforeAll, describe, expect } from 'vitest';
import { type LaunchedServer, launchServer } from '../../bench/src/launch.js';
import { STORE_SERVICES } from '../../bench/src/server-names.js';
import {
  BENCH_CLIENT_ID,
  BENCH_RESOURCE,
  BENCH_SCOPE,
  BENCH_USER,
  checkSpent,
  checkTokenEndpoint,
  postForm,
  TOKEN_REQUEST_BODY,
} from '../../bench/src/token-request.js';
import { POSTGRES, serviceUrl } from '../support/services.js';

/**
 * better-auth's oauth-provider as the bench starts it: each flow it is measured on answers a
 * token the bench verifies (ES256 against its JWKS, audience, subject, nonce), and its one-time
 * credentials are one-time.
 */
const postgresUrl = await serviceUrl(POSTGRES);
const servers = [
  { name: 'better-auth', env: {}, available: true },
  {
    name: 'better-auth-postgres',
    env: { [STORE_SERVICES['ours-postgres'].envVar]: postgresUrl ?? '' },
    available: postgresUrl !== undefined,
  },
] as const;

describe.each(servers)('bench server $name', ({ name, env, available }) => {
  let server: LaunchedServer;
  beforeAll(async () => {
    if (available) server = await launchServer(name, env);
  }, 30_000);
  afterAll(() => server?.stop());
  const it = available ? base : base.skip;

  it('issues a client_credentials ES256 JWT access token for the resource, verified against its JWKS', async () => {
    const { accessToken, tokenType } = await checkTokenEndpoint(server);
    expect(tokenType).toBe('Bearer');
    expect(decodeProtectedHeader(accessToken)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    expect(decodeJwt(accessToken)).toMatchObject({
      sub: BENCH_CLIENT_ID,
      aud: BENCH_RESOURCE,
      scope: BENCH_SCOPE,
    });
  });

  it('refuses client_credentials with a wrong secret', async () => {
    const body = TOKEN_REQUEST_BODY.replace(/client_secret=[^&]*/, 'client_secret=wrong');
    const { status, text } = await postForm(server.baseUrl + server.tokenPath, body);
    expect([400, 401]).toContain(status);
    expect(JSON.parse(text).error).toBe('invalid_client');
  });

  it('mints distinct codes, each exchanged once for an access token, ID token and refresh token', async () => {
    const codes = await server.mint('authorization_code', 2);
    expect(new Set(codes).size).toBe(2);
    const [code = '', other = ''] = codes;
    const tokens = await checkTokenEndpoint(server, 'authorization_code', code);
    expect(decodeJwt(tokens.idToken ?? '')).toMatchObject({ sub: BENCH_USER });
    await checkSpent(server, 'authorization_code', code);
    await expect(checkTokenEndpoint(server, 'authorization_code', other)).resolves.toEqual(
      expect.objectContaining({ refreshToken: expect.any(String) }),
    );
  });

  it('mints refresh tokens that rotate: each refreshes once, its successor again', async () => {
    const [minted = ''] = await server.mint('refresh_token', 1);
    const first = await checkTokenEndpoint(server, 'refresh_token', minted);
    const second = await checkTokenEndpoint(server, 'refresh_token', first.refreshToken ?? '');
    expect(second.refreshToken).not.toBe(first.refreshToken);
    await checkSpent(server, 'refresh_token', minted);
  });

  it('mints no ID token hints: it takes no part in CIBA', async () => {
    await expect(server.mint('id_token_hint', 1)).rejects.toThrow(/does not do CIBA/);
  });
});
