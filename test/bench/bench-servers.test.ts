import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BENCH_CIBA_INTERVAL,
  checkCibaInitiation,
  cibaRequestBody,
} from '../../bench/src/ciba-request.js';
import { checkDpopClientCredentials } from '../../bench/src/dpop-proofs.js';
import { FLOW_CRYPTO } from '../../bench/src/floor.js';
import {
  type LaunchedServer,
  launchServer,
  ServerUnavailableError,
} from '../../bench/src/launch.js';
import { checkPushedRequest, PUSHED_REQUEST_BODY } from '../../bench/src/pushed-request.js';
import { scenarioRequests } from '../../bench/src/scenario-requests.js';
import { DPOP_CLIENT_CREDENTIALS } from '../../bench/src/scenarios.js';
import { type ServerName, STORE_SERVICES } from '../../bench/src/server-names.js';
import {
  BENCH_USER,
  BENCH_WEB_CLIENT_ID,
  checkSpent,
  checkTokenEndpoint,
  postForm,
  TOKEN_REQUEST_BODY,
  tokenRequestBody,
} from '../../bench/src/token-request.js';
import { dpopKey } from '../support/dpop.js';
import { freePort } from '../support/ports.js';
import { countRedisKeys, sql } from '../support/service-admin.js';
import { POSTGRES, REDIS, serviceUrl } from '../support/services.js';

/**
 * `pnpm bench` without the load: every benchmarked server starts in its own process the way the
 * bench starts it and answers each of its scenarios' requests once, correctly.
 */
describe('bench servers', () => {
  const servers = new Map<ServerName, LaunchedServer>();
  beforeAll(async () => {
    const launched = await Promise.all(
      (['ours', 'ours-standalone', 'ceiling', 'hand-written', 'oidc-provider'] as const).map(
        async (name) => [name, await launchServer(name)] as const,
      ),
    );
    for (const [name, server] of launched) servers.set(name, server);
    // Five child processes compiling their sources through tsx at once, beside other suites.
  }, 60_000);
  afterAll(() => Promise.all([...servers.values()].map((server) => server.stop())));

  const started = (name: ServerName): LaunchedServer => {
    const server = servers.get(name);
    if (!server) throw new Error(`${name} did not start`);
    return server;
  };

  it.each(['ours', 'ours-standalone', 'hand-written', 'oidc-provider'] as const)(
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

  describe.each(['ours', 'hand-written', 'oidc-provider'] as const)('%s, user grants', (name) => {
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

    it('a spent code presented without its verifier is refused and revokes nothing', async () => {
      const server = started(name);
      const [code = ''] = await server.mint('authorization_code', 1);
      const { refreshToken = '' } = await checkTokenEndpoint(server, 'authorization_code', code);
      const withoutVerifier = new URLSearchParams(tokenRequestBody('authorization_code', code));
      withoutVerifier.delete('code_verifier');
      const { status } = await postForm(
        `${server.baseUrl}${server.tokenPath}`,
        withoutVerifier.toString(),
      );
      expect(status).toBe(400);
      await expect(checkTokenEndpoint(server, 'refresh_token', refreshToken)).resolves.toEqual(
        expect.objectContaining({ refreshToken: expect.any(String) }),
      );
    });
  });

  describe.each(['ours', 'oidc-provider'] as const)('%s, CIBA initiation', (name) => {
    it('mints ID tokens of the bench user for the web client, which name the user in an initiation', async () => {
      const server = started(name);
      const hints = await server.mint('id_token_hint', 2);
      expect(new Set(hints).size).toBe(2);
      for (const hint of hints) {
        expect(decodeProtectedHeader(hint)).toMatchObject({ alg: 'ES256' });
        expect(decodeJwt(hint)).toMatchObject({ sub: BENCH_USER, aud: BENCH_WEB_CLIENT_ID });
      }
      const before = (await server.counters()).pushes ?? 0;
      const [first, second] = await Promise.all(
        [hints[0], hints[0], hints[1]].map((hint) => checkCibaInitiation(server, hint ?? '')),
      );
      expect(first?.interval).toBe(name === 'ours' ? BENCH_CIBA_INTERVAL : undefined);
      expect(first?.authReqId).not.toBe(second?.authReqId);
      // Every accepted initiation reached the (no-op) authenticator push, once.
      expect((await server.counters()).pushes).toBe(before + 3);
    });

    it('refuses login_hint: the id_token_hint is the only way to name the user', async () => {
      const server = started(name);
      const body = new URLSearchParams(cibaRequestBody('x'));
      body.delete('id_token_hint');
      body.set('login_hint', BENCH_USER);
      const { status, text } = await postForm(
        `${server.baseUrl}${server.backchannelPath}`,
        body.toString(),
      );
      expect({ status, error: JSON.parse(text).error }).toEqual({
        status: 400,
        error: 'invalid_request',
      });
    });

    it('the pre-flight check refuses an initiation the server refuses', async () => {
      const server = started(name);
      const [code = ''] = await server.mint('authorization_code', 1);
      await expect(checkCibaInitiation(server, code)).rejects.toThrow(/answered 400/);
    });
  });

  describe.each(['ours', 'oidc-provider'] as const)('%s, DPoP and PAR', (name) => {
    it('binds a client_credentials token to the proof key and refuses the proof again', async () => {
      await expect(checkDpopClientCredentials(started(name), await dpopKey())).resolves.toBe(
        undefined,
      );
    });

    it('the pre-flight DPoP check refuses a server that refuses the proofs', async () => {
      const elsewhere = { ...started(name), issuerTokenUrl: 'https://elsewhere.example/token' };
      await expect(checkDpopClientCredentials(elsewhere, await dpopKey())).rejects.toThrow(
        /answered 40[01]/,
      );
    });

    it('takes the pushed authorization request, and refuses it without the client secret', async () => {
      const server = started(name);
      await expect(checkPushedRequest(server)).resolves.toBe(undefined);
      const unauthenticated = PUSHED_REQUEST_BODY.replace(/&client_secret=[^&]*/, '');
      const refused = await postForm(`${server.baseUrl}${server.parPath}`, unauthenticated);
      expect([400, 401]).toContain(refused.status);
      expect(JSON.parse(refused.text).error).toBe('invalid_client');
    });
  });

  it('the ceiling mints nothing: it answers every floor scenario with a fixed JSON', async () => {
    const ceiling = started('ceiling');
    await expect(ceiling.mint('authorization_code', 1)).rejects.toThrow(/mints no credentials/);
    const pool = { poolRate: 1, connections: 1 };
    for (const scenario of [...FLOW_CRYPTO.keys()]) {
      const requests = scenarioRequests(scenario, ceiling, pool, () => {});
      await expect(requests.check()).resolves.toBe(undefined);
      await expect(requests.bodiesFor(1)).resolves.toMatchObject({ kind: 'fixed' });
    }
    const unknownGrant = await postForm(`${ceiling.baseUrl}/token`, 'grant_type=password');
    expect(unknownGrant.status).toBe(400);
    expect(() => scenarioRequests(DPOP_CLIENT_CREDENTIALS, ceiling, pool, () => {})).toThrow(
      /no dpop_client_credentials request/,
    );
  });
});

/**
 * Ours on PostgreSQL and on Redis, each in a table or under a key prefix of its own, removed when
 * the server stops. Skipped with one loud line when the service is absent (failing under CI=true).
 */
const storeServers = [
  { name: 'ours-postgres', service: POSTGRES, url: await serviceUrl(POSTGRES) },
  { name: 'ours-redis', service: REDIS, url: await serviceUrl(REDIS) },
] as const;

describe.each(storeServers)('bench server $name', ({ name, service, url }) => {
  const { envVar } = STORE_SERVICES[name];
  /** Whether anything is left under the server's prefix. */
  const leftOver = async (prefix: string, serviceUrl: string) =>
    name === 'ours-postgres'
      ? (
          await sql(serviceUrl, 'SELECT to_regclass($1) IS NOT NULL AS found', [`${prefix}records`])
        )[0]?.found === true
      : (await countRedisKeys(serviceUrl, prefix)) > 0;

  describe.skipIf(!url)(`on ${service.name}`, () => {
    let server: LaunchedServer;
    beforeAll(async () => {
      server = await launchServer(name, { [envVar]: url ?? '' });
    });
    afterAll(() => server?.stop());

    it('issues a client_credentials token with one store write, counted', async () => {
      // A real token first; the server's first request also makes its signing key.
      await checkTokenEndpoint(server);
      const before = await server.counters();
      const { status } = await postForm(server.baseUrl + server.tokenPath, TOKEN_REQUEST_BODY);
      expect(status).toBe(200);
      const after = await server.counters();
      expect(after.requests).toBe((before.requests ?? 0) + 1);
      const calls = Object.entries(after.storeOps ?? {})
        .map(([method, count]) => [method, count - (before.storeOps?.[method] ?? 0)] as const)
        .filter(([, count]) => count > 0);
      expect(Object.fromEntries(calls)).toEqual({ set: 1 });
    });

    it('mints codes that are exchanged once, then refused', async () => {
      const [code = ''] = await server.mint('authorization_code', 1);
      await checkTokenEndpoint(server, 'authorization_code', code);
      await checkSpent(server, 'authorization_code', code);
    });

    it('stops, removing everything it stored', async () => {
      const prefix = server.storePrefix ?? '';
      expect(prefix).toMatch(/^bench_[0-9a-f]{10}_/);
      expect(await leftOver(prefix, url ?? '')).toBe(true);
      await server.stop();
      expect(await leftOver(prefix, url ?? '')).toBe(false);
    });
  });

  it(`is skipped by the bench when ${service.name} does not answer`, async () => {
    const nowhere = new URL(service.defaultUrl);
    nowhere.port = String(await freePort());
    const launched = launchServer(name, { [envVar]: nowhere.href });
    await expect(launched).rejects.toThrow(ServerUnavailableError);
    await expect(launched).rejects.toThrow(
      `${name}: ${service.name} does not answer at 127.0.0.1:${nowhere.port}`,
    );
  });
});
