import { createServer, type Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { CibaNotification, ClientInput } from '@gatehouse-oidc/core';
import { nodeOutbound } from '@gatehouse-oidc/node-outbound';
import { buildServer, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESSES } from '../adapters/harnesses.js';
import { balancedInjector } from '../multi-instance/instances.js';
import type { Injector } from '../server/pages-support.js';
import { CliProcess, configDir, killAllCli } from '../server/support.js';
import { clientKeyPair, TEST_ACCOUNTS, testRealm, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { freePort } from '../support/ports.js';
import { LOOPBACK_TLS } from '../support/tls.js';
import { codeRequest } from './code-request.js';
import { type RunningGatehouse, startGatehouse } from './gatehouse-server.js';
import { expectOAuthError } from './relying-party-errors.js';
import { signInWithOpenidClient } from './standalone-sign-in.js';
import { hostInteractionUrl, signInAs, userAgent } from './user-agent.js';

/**
 * CIBA ping mode (CIBA Core 1.0 §10.2) driven by openid-client v6: the client starts a request
 * with its `client_notification_token`, the user's decision makes the provider POST the
 * auth_req_id to the client's notification endpoint — an https receiver on loopback that this
 * test starts with the loopback certificate, which the provider's outbound transport trusts —
 * and the client then asks the token endpoint once. Against the standalone server (the
 * decision through its admin API) in process and as `gatehouse serve` trusting the certificate
 * through NODE_EXTRA_CA_CERTS, and in every framework binding (`provider.ciba`).
 */

const CIBA = 'urn:openid:params:grant-type:ciba';
const SECRET = 'ping-app-secret-0123456789abcdef';
const ADMIN_TOKEN = 'ping-admin-token-0123456789abcdef012';
const PASSWORD = 'alice-ping-password';
const NOTIFY_PATH = '/ciba/notify';

/** What the client's notification endpoint received. */
interface ReceivedPing {
  authorization: string | undefined;
  contentType: string | undefined;
  body: { auth_req_id?: string };
}

/**
 * The client's notification endpoint, https on a loopback port. `answer` is how it answers from
 * now on: 204 at once, 503, or nothing until `release()` is called. Any other path is the
 * authenticator's webhook of the spawned servers: answered 204, not recorded.
 */
async function startReceiver() {
  const pings: ReceivedPing[] = [];
  let held: Array<() => void> = [];
  const receiver = {
    pings,
    answer: 204 as 204 | 503 | 'hold',
    origin: '',
    url: '',
    /** The pings announcing `authReqId`, once there are `count` of them. */
    async pingsFor(authReqId: string, count = 1): Promise<ReceivedPing[]> {
      for (;;) {
        const found = pings.filter((ping) => ping.body.auth_req_id === authReqId);
        if (found.length >= count) return found;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    release() {
      for (const answer of held.splice(0)) answer();
    },
    close: () => {
      receiver.release();
      return new Promise((resolve) => server.close(resolve));
    },
  };
  const server: HttpsServer = createServer(LOOPBACK_TLS, (request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      if (request.url !== NOTIFY_PATH) {
        response.writeHead(204).end();
        return;
      }
      pings.push({
        authorization: request.headers.authorization,
        contentType: request.headers['content-type'],
        body: JSON.parse(body),
      });
      const { answer } = receiver;
      if (answer === 'hold') held.push(() => response.writeHead(204).end());
      else response.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  receiver.url = `${receiver.origin}${NOTIFY_PATH}`;
  held = [];
  return receiver;
}

/** A ping client of the realm whose notification endpoint is `url`. */
const pingClient = (url: string) =>
  ({
    client_id: 'ping-app',
    client_name: 'Ping app',
    client_secret: SECRET,
    token_endpoint_auth_method: 'client_secret_post',
    redirect_uris: [WEB_REDIRECT_URI],
    grant_types: ['authorization_code', CIBA],
    scope: 'openid profile',
    skip_consent: true,
    backchannel_token_delivery_mode: 'ping',
    backchannel_client_notification_endpoint: url,
  }) as const satisfies ClientInput;

/** The standalone server's config: realm `demo` with the ping client and alice. */
const standaloneConfig = (baseUrl: string) => ({
  base_url: baseUrl,
  admin_token: ADMIN_TOKEN,
  cookie_secret: 'ping-cookie-secret-0123456789abcdef0123',
  realms: [
    {
      name: 'demo',
      scopes: ['openid', 'profile'],
      ciba: {
        interval: 2,
        expires_in: 60,
        authenticator: { webhook_url: `${receiver.origin}/authenticator/push` },
      },
      clients: [pingClient(receiver.url)],
      users: [{ sub: 'alice', username: 'alice', password: PASSWORD }],
    },
  ],
});

/** The authenticator's back end answers for the user through the admin API. */
async function decide(
  baseUrl: string,
  authReqId: string,
  decision: 'approve' | 'deny',
): Promise<number> {
  const response = await fetch(`${baseUrl}/admin/realms/demo/ciba/${authReqId}/${decision}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return response.status;
}

/** openid-client's view of ping-app, signed in as alice through the server's pages. */
const signIn = (pages: Injector, baseUrl: string) =>
  signInWithOpenidClient(
    pages,
    `${baseUrl}/oauth/demo`,
    { clientId: 'ping-app', secret: SECRET, redirectUri: WEB_REDIRECT_URI },
    { username: 'alice', password: PASSWORD },
  );

/** A fresh notification token per request, as a client would make one. */
const notificationToken = () => oidc.randomState();

/** The client asks for the tokens the ping announced. */
const fetchTokens = (config: oidc.Configuration, authReqId: string) =>
  oidc.genericGrantRequest(config, CIBA, { auth_req_id: authReqId });

let receiver: Awaited<ReturnType<typeof startReceiver>>;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());

describe('CIBA ping with openid-client against the standalone server', () => {
  let gatehouse: Server;
  let baseUrl: string;
  let config: oidc.Configuration;
  let idToken: string;
  const reports: unknown[] = [];
  const notified: CibaNotification[] = [];

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // The server's own transport, trusting the receiver's certificate as NODE_EXTRA_CA_CERTS would.
    const transport = nodeOutbound({ ca: [LOOPBACK_TLS.cert] });
    const trustingFetch = ((url: string, init: RequestInit) =>
      transport.send({
        url: new URL(url),
        method: init.method as 'POST',
        headers: init.headers as Record<string, string>,
        body: init.body as string,
        signal: init.signal as AbortSignal,
        publicOnly: false,
      })) as typeof fetch;
    gatehouse = buildServer(parseServerConfig(standaloneConfig(baseUrl)), {
      report: (error) => reports.push(error),
      fetch: trustingFetch,
      authenticatorPush: { notify: async (notification) => void notified.push(notification) },
    });
    await gatehouse.app.listen({ port, host: '127.0.0.1' });
    ({ config, idToken } = await signIn(gatehouse.app, baseUrl));
  }, 30_000);

  afterAll(async () => {
    await gatehouse?.app.close();
  });

  const initiate = (parameters: Record<string, string> = {}) =>
    oidc.initiateBackchannelAuthentication(config, {
      scope: 'openid profile',
      id_token_hint: idToken,
      ...parameters,
    });

  it('discovery lists ping beside poll', () => {
    expect(config.serverMetadata().backchannel_token_delivery_modes_supported).toEqual([
      'poll',
      'ping',
    ]);
  });

  it('approve: the ping carries the auth_req_id and the bearer token; the token endpoint answers at once', async () => {
    receiver.answer = 204;
    const token = notificationToken();
    const started = await initiate({ client_notification_token: token });
    expect(await decide(baseUrl, started.auth_req_id, 'approve')).toBe(204);
    const [ping] = await receiver.pingsFor(started.auth_req_id);
    expect(ping).toEqual({
      authorization: `Bearer ${token}`,
      contentType: 'application/json',
      body: { auth_req_id: started.auth_req_id },
    });
    // Sooner than `interval` after the initiation: a ping client is not held to it.
    const tokens = await fetchTokens(config, ping?.body.auth_req_id ?? '');
    expect(decodeJwt(tokens.id_token ?? '')).toMatchObject({ sub: 'alice', aud: 'ping-app' });
    expect(tokens.access_token).toEqual(expect.any(String));
    await expectOAuthError(fetchTokens(config, started.auth_req_id), {
      status: 400,
      error: 'invalid_grant',
    });
  });

  it('deny: the ping comes too, then polling (allowed to a ping client) answers access_denied', async () => {
    receiver.answer = 204;
    const started = await initiate({ client_notification_token: notificationToken() });
    expect(await decide(baseUrl, started.auth_req_id, 'deny')).toBe(204);
    await receiver.pingsFor(started.auth_req_id);
    await expectOAuthError(oidc.pollBackchannelAuthenticationGrant(config, started), {
      status: 400,
      error: 'access_denied',
    });
  });

  it('refuses a request without client_notification_token', async () => {
    await expectOAuthError(initiate(), { status: 400, error: 'invalid_request' });
  });

  it('a receiver that holds the ping does not hold the decision', async () => {
    receiver.answer = 'hold';
    const started = await initiate({ client_notification_token: notificationToken() });
    const decidedAt = performance.now();
    expect(await decide(baseUrl, started.auth_req_id, 'approve')).toBe(204);
    expect(performance.now() - decidedAt).toBeLessThan(1000);
    await receiver.pingsFor(started.auth_req_id);
    receiver.release();
    expect((await fetchTokens(config, started.auth_req_id)).access_token).toEqual(
      expect.any(String),
    );
  });

  it('a failing receiver gets three attempts with backoff, then one report without the token', async () => {
    receiver.answer = 503;
    const token = notificationToken();
    const started = await initiate({ client_notification_token: token });
    const reportsBefore = reports.length;
    expect(await decide(baseUrl, started.auth_req_id, 'approve')).toBe(204);
    await receiver.pingsFor(started.auth_req_id, 3);
    for (let waited = 0; reports.length === reportsBefore && waited < 2000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Given up: no fourth attempt comes.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const attempts = await receiver.pingsFor(started.auth_req_id);
    expect(attempts).toHaveLength(3);
    const reported = reports.slice(reportsBefore).map(String);
    expect(reported).toEqual([
      'CibaPingError: CIBA ping to client "ping-app" of realm "demo" failed: answered HTTP 503',
    ]);
    expect(reported.join()).not.toContain(token);
    expect(reported.join()).not.toContain(started.auth_req_id);
    // The ping was lost; the client can still poll for what it was told of.
    expect((await oidc.pollBackchannelAuthenticationGrant(config, started)).access_token).toEqual(
      expect.any(String),
    );
  }, 15_000);

  it('told the authenticator of every request, and reported nothing but the failing receiver', () => {
    expect(notified.map((each) => each.clientId)).toEqual(Array(4).fill('ping-app'));
    expect(reports.map(String)).toEqual([expect.stringMatching(/^CibaPingError: .*HTTP 503$/)]);
  });
});

describe('CIBA ping from `gatehouse serve`, trusting the receiver through NODE_EXTRA_CA_CERTS', () => {
  const CERT_FILE = fileURLToPath(new URL('../support/tls/loopback-cert.pem', import.meta.url));
  const dir = configDir();
  afterAll(() => {
    killAllCli();
    dir.remove();
  });

  /** `gatehouse serve` on a free port with `env` added, and alice signed in with openid-client. */
  async function serve(env: Record<string, string>) {
    const port = await freePort();
    const baseUrl = `http://127.0.0.1:${port}`;
    const file = dir.write(`gatehouse-${port}.json`, standaloneConfig(baseUrl));
    const cli = new CliProcess(['serve', '--config', file, '--port', String(port)], env);
    const origin = await cli.origin();
    const instance = {
      name: 'serve',
      cli,
      origin,
      fetch: (path: string, init?: RequestInit) => fetch(new URL(path, origin), init),
    };
    const { config, idToken } = await signIn(balancedInjector(() => instance).injector, baseUrl);
    const initiate = () =>
      oidc.initiateBackchannelAuthentication(config, {
        scope: 'openid',
        id_token_hint: idToken,
        client_notification_token: notificationToken(),
      });
    return { cli, baseUrl, config, initiate };
  }

  it('the ping reaches the https receiver the server verified, and the client gets its tokens', async () => {
    receiver.answer = 204;
    const { baseUrl, config, initiate } = await serve({ NODE_EXTRA_CA_CERTS: CERT_FILE });
    const started = await initiate();
    expect(await decide(baseUrl, started.auth_req_id, 'approve')).toBe(204);
    await receiver.pingsFor(started.auth_req_id);
    const tokens = await fetchTokens(config, started.auth_req_id);
    expect(decodeJwt(tokens.id_token ?? '')).toMatchObject({ sub: 'alice' });
  }, 60_000);

  it('without the certificate the TLS check fails: the ping is given up, in one line on stderr', async () => {
    receiver.answer = 204;
    const { cli, baseUrl, initiate } = await serve({});
    const started = await initiate();
    expect(await decide(baseUrl, started.auth_req_id, 'approve')).toBe(204);
    const [line] = await cli.waitFor(/^.*CibaPingError.*$/m, 'stderr');
    expect(line).toContain(
      'CibaPingError: CIBA ping to client "ping-app" of realm "demo" failed: could not be reached',
    );
    expect(cli.stderr.match(/CibaPingError/g)).toHaveLength(1);
    expect(receiver.pings.filter((ping) => ping.body.auth_req_id === started.auth_req_id)).toEqual(
      [],
    );
    expect(cli.stderr).not.toContain(started.auth_req_id);
  }, 60_000);
});

describe.each(HARNESSES)('CIBA ping with openid-client through $name', (harness) => {
  let gatehouse: RunningGatehouse;
  let config: oidc.Configuration;
  let idToken: string;
  const notified: CibaNotification[] = [];

  beforeAll(async () => {
    const realm = testRealm(await clientKeyPair(), { ciba: { interval: 5 } });
    realm.clients = [...(realm.clients ?? []), pingClient(receiver.url)];
    gatehouse = await startGatehouse(harness, [realm], {
      accounts: TEST_ACCOUNTS,
      interactionUrl: hostInteractionUrl,
      outbound: nodeOutbound({ ca: [LOOPBACK_TLS.cert] }),
      authenticatorPush: { notify: async (notification) => void notified.push(notification) },
    });
    config = await oidc.discovery(
      new URL(gatehouse.issuer('test')),
      'ping-app',
      undefined,
      oidc.ClientSecretPost(SECRET),
      { [oidc.customFetch]: gatehouse.fetch },
    );
    const request = await codeRequest(config, { redirect_uri: WEB_REDIRECT_URI, scope: 'openid' });
    const url = oidc.buildAuthorizationUrl(config, request.parameters);
    const callback = await userAgent(gatehouse, signInAs('alice')).navigate(url);
    const tokens = await request.redeem(callback);
    idToken = tokens.id_token ?? '';
  });
  afterAll(() => gatehouse?.close());

  it('the decision pings the client, which then fetches the tokens', async () => {
    receiver.answer = 204;
    const token = notificationToken();
    const started = await oidc.initiateBackchannelAuthentication(config, {
      scope: 'openid',
      id_token_hint: idToken,
      client_notification_token: token,
      binding_message: 'Door 12',
    });
    const [notification] = notified.splice(0);
    expect(notification).toMatchObject({ sub: 'alice', clientName: 'Ping app' });
    expect(await gatehouse.ciba.approve('test', notification?.authReqId ?? '')).toBe(true);
    const [ping] = await receiver.pingsFor(started.auth_req_id);
    expect(ping?.authorization).toBe(`Bearer ${token}`);
    const tokens = await fetchTokens(config, started.auth_req_id);
    expect(decodeJwt(tokens.id_token ?? '')).toMatchObject({ sub: 'alice', aud: 'ping-app' });
  });
});
