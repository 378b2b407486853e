import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LaunchedServer, launchServer } from '../../bench/src/launch.js';
import { SERVER_NAMES, type ServerName } from '../../bench/src/server-names.js';
import { checkSpent, checkTokenEndpoint } from '../../bench/src/token-request.js';

/**
 * `pnpm bench` without the load: every benchmarked server starts in its own process the way the
 * bench starts it and answers each of its scenarios' token requests once with real tokens.
 */
describe('bench servers', () => {
  const servers = new Map<ServerName, LaunchedServer>();
  beforeAll(async () => {
    const launched = await Promise.all(
      SERVER_NAMES.map(async (name) => [name, await launchServer(name)] as const),
    );
    for (const [name, server] of launched) servers.set(name, server);
  });
  afterAll(() => Promise.all([...servers.values()].map((server) => server.stop())));

  const started = (name: ServerName): LaunchedServer => {
    const server = servers.get(name);
    if (!server) throw new Error(`${name} did not start`);
    return server;
  };

  it.each(['ours', 'oidc-provider'] as const)(
    '%s issues an ES256 JWT access token verified against its JWKS',
    async (name) => {
      const { accessToken, tokenType } = await checkTokenEndpoint(started(name));
      expect(tokenType).toBe('Bearer');
      expect(decodeProtectedHeader(accessToken)).toMatchObject({ alg: 'ES256', typ: 'at+jwt' });
    },
  );

  it('ceiling parses the form and answers the fixed token response', async () => {
    await expect(checkTokenEndpoint(started('ceiling'))).resolves.toEqual({
      accessToken: 'ceiling',
      tokenType: 'Bearer',
    });
  });

  it('the pre-flight check refuses a server that answers errors', async () => {
    await expect(
      checkTokenEndpoint({ ...started('ours'), tokenPath: '/auth/oauth/no-such-realm/token' }),
    ).rejects.toThrow(/answered 404/);
  });

  it('each server reports the CPU time it used, for the per-request cost column', async () => {
    const ours = started('ours');
    const before = await ours.cpuMicros();
    await checkTokenEndpoint(ours);
    expect(await ours.cpuMicros()).toBeGreaterThan(before);
  });

  describe.each(['ours', 'oidc-provider'] as const)('%s, user grants', (name) => {
    it('mints distinct codes, each exchanged once for an access token, ID token and refresh token', async () => {
      const server = started(name);
      const codes = await server.mint('authorization_code', 3);
      expect(new Set(codes).size).toBe(3);
      const [code = '', other = ''] = codes;
      const tokens = await checkTokenEndpoint(server, 'authorization_code', code);
      expect(decodeProtectedHeader(tokens.accessToken)).toMatchObject({ alg: 'ES256' });
      expect(decodeProtectedHeader(tokens.idToken ?? '')).toMatchObject({ alg: 'ES256' });
      await expect(checkTokenEndpoint(server, 'authorization_code', other)).resolves.toEqual(
        expect.objectContaining({ refreshToken: expect.any(String) }),
      );
    });

    it('a replayed code is refused and revokes what it gave', async () => {
      const server = started(name);
      const [code = ''] = await server.mint('authorization_code', 1);
      const { refreshToken = '' } = await checkTokenEndpoint(server, 'authorization_code', code);
      await checkSpent(server, 'authorization_code', code);
      await expect(checkTokenEndpoint(server, 'refresh_token', refreshToken)).rejects.toThrow(
        /answered 400/,
      );
    });

    it('mints refresh tokens that rotate: each refreshes once, its successor again', async () => {
      const server = started(name);
      const [minted = ''] = await server.mint('refresh_token', 1);
      const first = await checkTokenEndpoint(server, 'refresh_token', minted);
      const second = await checkTokenEndpoint(server, 'refresh_token', first.refreshToken ?? '');
      expect(second.refreshToken).not.toBe(first.refreshToken);
      expect(decodeProtectedHeader(second.idToken ?? '')).toMatchObject({ alg: 'ES256' });
      // Reuse of a rotated token revokes the grant, its newest refresh token included.
      await checkSpent(server, 'refresh_token', minted);
      await expect(
        checkTokenEndpoint(server, 'refresh_token', second.refreshToken ?? ''),
      ).rejects.toThrow(/answered 400/);
    });

    it('the pre-flight check refuses a credential the server does not accept', async () => {
      const server = started(name);
      const [code = ''] = await server.mint('authorization_code', 1);
      await expect(checkTokenEndpoint(server, 'refresh_token', code)).rejects.toThrow(
        /answered 400/,
      );
      await expect(checkSpent(server, 'authorization_code', code)).rejects.toThrow(
        /answered 200, not invalid_grant/,
      );
    });
  });

  it('the ceiling mints nothing: it takes part in client_credentials only', async () => {
    await expect(started('ceiling').mint('authorization_code', 1)).rejects.toThrow(
      /client_credentials only/,
    );
  });
});
