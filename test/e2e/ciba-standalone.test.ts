import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  buildServer,
  parseServerConfig,
  type Server,
  type WebhookPayload,
} from '@gatehouse-oidc/server';
import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';
import { expectOAuthError } from './relying-party-errors.js';
import { signInWithOpenidClient } from './standalone-sign-in.js';

/**
 * The CIBA proof of issue 4: openid-client v6 against the standalone server over real HTTP, with
 * an authenticator back end that receives the server's webhook push and answers through the
 * admin API. The five paths of the poll state machine a client can meet: approve, deny, expire,
 * too fast, replay. Real time: the polls wait `interval` seconds, so the paths run concurrently.
 */

const CIBA = 'urn:openid:params:grant-type:ciba';
const ADMIN_TOKEN = 'ciba-admin-token-0123456789abcdef0123';
const CLIENT_SECRET = 'ciba-app-secret-0123456789abcdef';
const PASSWORD = 'alice-ciba-password';
const REDIRECT_URI = 'https://app.example.com/cb';
/** How the authenticator says the user authenticated when approving. */
const APPROVAL = { amr: ['hwk', 'face'], acr: 'urn:example:loa:3' };

/** Values by key that one side sets and the other awaits, whichever comes first. */
function rendezvous<T>() {
  const entries = new Map<string, { promise: Promise<T>; resolve: (value: T) => void }>();
  const entry = (key: string) => {
    let found = entries.get(key);
    if (!found) {
      let resolve: (value: T) => void = () => {};
      const promise = new Promise<T>((done) => {
        resolve = done;
      });
      found = { promise, resolve };
      entries.set(key, found);
    }
    return found;
  };
  return {
    set: (key: string, value: T) => entry(key).resolve(value),
    get: (key: string) => entry(key).promise,
  };
}

/**
 * The authenticator's back end: takes the server's push, answers 204, and — as the user would
 * on their phone — approves when the binding message starts with "approve", denies when it
 * starts with "deny", and leaves the request alone otherwise.
 */
async function startAuthenticator(adminBase: () => string) {
  const pushes = rendezvous<WebhookPayload>();
  const decisions = rendezvous<number>();

  async function decide(
    push: Pick<WebhookPayload, 'realm' | 'auth_req_id'>,
    decision: 'approve' | 'deny',
  ) {
    const response = await fetch(
      `${adminBase()}/admin/realms/${push.realm}/ciba/${push.auth_req_id}/${decision}`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        ...(decision === 'approve' ? { body: JSON.stringify(APPROVAL) } : {}),
      },
    );
    return response.status;
  }

  const server: HttpServer = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', async () => {
      if (request.method !== 'POST' || request.url !== '/push') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(204).end();
      const push = JSON.parse(body) as WebhookPayload;
      pushes.set(push.auth_req_id, push);
      const decision = /^(approve|deny)\b/.exec(push.binding_message ?? '')?.[1];
      if (decision === 'approve' || decision === 'deny') {
        decisions.set(push.auth_req_id, await decide(push, decision));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    webhookUrl: `http://127.0.0.1:${port}/push`,
    /** The push the server sent for this request, once it arrived. */
    pushed: pushes.get,
    /** The admin API's status for the back end's decision on this request. */
    decided: decisions.get,
    decide,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe('CIBA with openid-client against the standalone server', () => {
  let authenticator: Awaited<ReturnType<typeof startAuthenticator>>;
  let gatehouse: Server;
  let baseUrl: string;
  const reports: unknown[] = [];
  /** Per realm: openid-client's configuration and an ID token of alice for the hint. */
  const clients = new Map<string, { config: oidc.Configuration; idToken: string }>();

  /** A realm whose `ciba-app` client signs alice in by code flow and then uses CIBA. */
  const realm = (name: string, interval: number) => ({
    name,
    scopes: ['openid', 'profile', 'email'],
    ciba: { interval, expires_in: 30, authenticator: { webhook_url: authenticator.webhookUrl } },
    clients: [
      {
        client_id: 'ciba-app',
        client_name: 'CIBA test app',
        client_secret: CLIENT_SECRET,
        token_endpoint_auth_method: 'client_secret_post',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token', CIBA],
        scope: 'openid profile email',
        skip_consent: true,
      },
    ],
    users: [{ sub: 'alice', username: 'alice', password: PASSWORD, claims: { name: 'Alice' } }],
  });

  /** openid-client discovers the realm and signs alice in through the login page. */
  async function signIn(realmName: string) {
    const client = { clientId: 'ciba-app', secret: CLIENT_SECRET, redirectUri: REDIRECT_URI };
    const user = { username: 'alice', password: PASSWORD };
    clients.set(
      realmName,
      await signInWithOpenidClient(gatehouse.app, `${baseUrl}/oauth/${realmName}`, client, user),
    );
  }

  /** The client starts a backchannel request for the user of its ID token. */
  function initiate(realmName: string, parameters: Record<string, string>) {
    const client = clients.get(realmName);
    if (!client) throw new Error(`no sign-in in ${realmName}`);
    const response = oidc.initiateBackchannelAuthentication(client.config, {
      scope: 'openid profile',
      id_token_hint: client.idToken,
      ...parameters,
    });
    return { config: client.config, response };
  }

  beforeAll(async () => {
    authenticator = await startAuthenticator(() => baseUrl);
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    const config = parseServerConfig({
      base_url: baseUrl,
      admin_token: ADMIN_TOKEN,
      cookie_secret: 'ciba-cookie-secret-0123456789abcdef0123',
      // demo: openid-client's own polling, one second apart; strict: room for a poll too soon.
      realms: [realm('demo', 1), realm('strict', 2)],
    });
    gatehouse = buildServer(config, { report: (error) => reports.push(error) });
    await gatehouse.app.listen({ port, host: '127.0.0.1' });
    await Promise.all([signIn('demo'), signIn('strict')]);
  }, 30_000);

  afterAll(async () => {
    await gatehouse?.app.close();
    await authenticator?.close();
    // Every push reached the authenticator at the first attempt.
    expect(reports).toEqual([]);
  });

  it.concurrent('approve: the push reaches the authenticator, its approval gives the tokens', async () => {
    const startedAt = Math.floor(Date.now() / 1000);
    const { config, response } = initiate('demo', { binding_message: 'approve: Order 4711' });
    const started = await response;
    const answeredAt = Math.floor(Date.now() / 1000);
    expect(started).toEqual({
      auth_req_id: expect.stringMatching(/^[\w-]{43}$/),
      expires_in: 30,
      interval: 1,
    });
    const push = await authenticator.pushed(started.auth_req_id);
    expect(push).toStrictEqual({
      realm: 'demo',
      auth_req_id: started.auth_req_id,
      sub: 'alice',
      client_id: 'ciba-app',
      client_name: 'CIBA test app',
      scope: 'openid profile',
      binding_message: 'approve: Order 4711',
      expires_at: expect.any(Number),
    });
    expect(push.expires_at).toBeGreaterThanOrEqual(startedAt + 30);
    expect(push.expires_at).toBeLessThanOrEqual(answeredAt + 30);
    expect(await authenticator.decided(started.auth_req_id)).toBe(204);

    const tokens = await oidc.pollBackchannelAuthenticationGrant(config, started);
    expect(tokens).toMatchObject({
      token_type: 'bearer',
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      expires_in: expect.any(Number),
    });
    const claims = decodeJwt(tokens.id_token ?? '');
    expect(claims).toMatchObject({ sub: 'alice', aud: 'ciba-app', ...APPROVAL });
    expect(claims.auth_time).toBeGreaterThanOrEqual(startedAt);
    // The refresh token is a real one.
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token ?? '');
    expect(refreshed.access_token).toEqual(expect.any(String));

    // Replay: the next poll, in time, finds the request already answered.
    await expectOAuthError(oidc.pollBackchannelAuthenticationGrant(config, started), {
      status: 400,
      error: 'invalid_grant',
    });
  });

  it.concurrent('deny: the poll answers access_denied', async () => {
    const { config, response } = initiate('demo', { binding_message: 'deny: Order 4712' });
    const started = await response;
    expect(await authenticator.decided(started.auth_req_id)).toBe(204);
    await expectOAuthError(oidc.pollBackchannelAuthenticationGrant(config, started), {
      status: 400,
      error: 'access_denied',
    });
  });

  it.concurrent('expire: nobody answers within requested_expiry, the poll answers expired_token', async () => {
    const { config, response } = initiate('demo', {
      binding_message: 'wait: Order 4713',
      requested_expiry: '1',
    });
    const started = await response;
    expect(started).toMatchObject({ expires_in: 1, interval: 1 });
    // openid-client would otherwise stop by itself after expires_in, before the server could say.
    const signal = AbortSignal.timeout(10_000);
    await expectOAuthError(
      oidc.pollBackchannelAuthenticationGrant(config, started, {}, { signal }),
      {
        status: 400,
        error: 'expired_token',
      },
    );
    const push = await authenticator.pushed(started.auth_req_id);
    expect(await authenticator.decide(push, 'approve')).toBe(404);
  });

  it.concurrent('too fast: a poll sooner than interval answers slow_down and cancels the request', async () => {
    const { config, response } = initiate('strict', { binding_message: 'wait: Order 4714' });
    const started = await response;
    expect(started.interval).toBe(2);
    const poll = () => oidc.genericGrantRequest(config, CIBA, { auth_req_id: started.auth_req_id });
    await expectOAuthError(poll(), { status: 400, error: 'slow_down' });
    // Cancelled for good: a poll in time, and the user's approval, come too late.
    await expectOAuthError(oidc.pollBackchannelAuthenticationGrant(config, started), {
      status: 400,
      error: 'invalid_grant',
    });
    const push = await authenticator.pushed(started.auth_req_id);
    expect(await authenticator.decide(push, 'approve')).toBe(404);
  });
});
