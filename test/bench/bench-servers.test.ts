import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LaunchedServer, launchServer } from '../../bench/src/launch.js';
import { SERVER_NAMES, type ServerName } from '../../bench/src/server-names.js';
import { checkTokenEndpoint } from '../../bench/src/token-request.js';

/**
 * `pnpm bench` without the load: every benchmarked server starts in its own process the way the
 * bench starts it and answers the benchmark's token request with a real token.
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
});
