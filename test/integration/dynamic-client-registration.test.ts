import { createHash } from 'node:crypto';
import type { GatehouseEvent } from '@gatehouse-oidc/core';
import { fakeClock } from '@gatehouse-oidc/core/testing';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browser, CODE_VERIFIER } from './browser.js';
import {
  basicAuthorization,
  createHarness,
  endpointPath,
  type Harness,
  RecordingStore,
  TOKEN,
} from './harness.js';

/**
 * Dynamic client registration (RFC 7591) and the client configuration endpoint (RFC 7592),
 * driven in-process on a fake clock and a store the tests can read.
 */

const REGISTER = endpointPath('register');
const INITIAL_TOKEN = 'initial-access-token-of-the-test-realm-0123456789';
const REDIRECT = 'https://app.example.org/callback';
const DAY = 86_400;

const JSON_HEADERS = { 'content-type': 'application/json' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

let h: Harness;
let store: RecordingStore;
let events: GatehouseEvent[];
let clock: ReturnType<typeof fakeClock>;

let fetched: string[];

async function start(
  registration: Record<string, unknown> = { initial_access_token: INITIAL_TOKEN },
) {
  clock = fakeClock();
  store = new RecordingStore({ now: clock.now });
  events = [];
  fetched = [];
  h = await createHarness({
    clock,
    store: () => store,
    realm: { registration },
    onEvent: (event) => void events.push(event),
    // The registered clients' jwks_uri, answered here.
    fetch: async (input) => {
      fetched.push(String(input));
      return Response.json({ keys: [h.keys.publicJwk] });
    },
  });
}

beforeEach(() => start());

const register = (body: unknown, headers: Record<string, string> = bearer(INITIAL_TOKEN)) =>
  h.send({
    method: 'POST',
    path: REGISTER,
    query: '',
    headers: { ...JSON_HEADERS, ...headers },
    body: JSON.stringify(body),
  });

/** A request to a registered client's configuration endpoint. */
const configure = (
  answer: Record<string, unknown>,
  method: 'GET' | 'PUT' | 'DELETE',
  body?: unknown,
  token = String(answer.registration_access_token),
) =>
  h.send({
    method,
    path: new URL(String(answer.registration_client_uri)).pathname,
    query: '',
    headers: { ...bearer(token), ...(body === undefined ? {} : JSON_HEADERS) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

const webApp = { redirect_uris: [REDIRECT], client_name: 'Registered app' };

/** The code alice's sign-in gives the client. */
async function codeFor(clientId: string, redirectUri = REDIRECT): Promise<string> {
  const answer = await browser(h).signIn({ client_id: clientId, redirect_uri: redirectUri });
  const location = new URL(answer.headers.location ?? '');
  expect(location.origin + location.pathname).toBe(redirectUri);
  return location.searchParams.get('code') ?? '';
}

async function tokensFor(answer: Record<string, unknown>) {
  const clientId = String(answer.client_id);
  const code = await codeFor(clientId);
  return h.post(
    TOKEN,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: CODE_VERIFIER,
    },
    { authorization: basicAuthorization(clientId, String(answer.client_secret)) },
  );
}

describe('a realm that registers clients', () => {
  it('says where in its metadata; a realm without the option neither says nor answers', async () => {
    const metadata = await h.get(endpointPath('.well-known/openid-configuration'));
    expect(metadata.json().registration_endpoint).toBe(`${h.issuer()}/register`);
    const plain = await createHarness();
    const without = await plain.get(endpointPath('.well-known/openid-configuration'));
    expect(without.json()).not.toHaveProperty('registration_endpoint');
    h = plain;
    expect((await register(webApp)).status).toBe(404);
  });

  it('registers a client that then signs alice in, refreshes, and is read, updated and deleted', async () => {
    const registered = await register({
      ...webApp,
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(registered.status).toBe(201);
    expect(registered.headers['cache-control']).toBe('no-store');
    const answer = registered.json();
    expect(answer).toMatchObject({
      client_id_issued_at: h.nowSeconds(),
      client_secret_expires_at: 0,
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      application_type: 'web',
      scope: 'openid profile email api:read api:write other:read',
      client_name: 'Registered app',
    });
    // 128 bits of client_id, 256 bits of secret and of registration access token.
    expect(answer.client_id).toMatch(/^[\w-]{22}$/);
    expect(answer.client_secret).toMatch(/^[\w-]{43}$/);
    expect(answer.registration_access_token).toMatch(/^[\w-]{43}$/);
    expect(answer.registration_client_uri).toBe(`${h.issuer()}/register/${answer.client_id}`);

    const tokens = await tokensFor(answer);
    expect(tokens.status).toBe(200);
    const access = String(tokens.json().access_token);
    const userinfo = await h.get(endpointPath('userinfo'), bearer(access));
    expect(userinfo.json()).toMatchObject({ sub: 'alice' });
    const refreshed = await h.post(
      TOKEN,
      { grant_type: 'refresh_token', refresh_token: String(tokens.json().refresh_token) },
      { authorization: basicAuthorization(String(answer.client_id), String(answer.client_secret)) },
    );
    expect(refreshed.status).toBe(200);

    const read = await configure(answer, 'GET');
    expect(read.status).toBe(200);
    const { client_secret: _secret, client_secret_expires_at: _expiry, ...rest } = answer;
    expect(read.json()).toEqual(rest);

    const { grant_types: _left, ...kept } = rest;
    const update = { ...kept, client_name: 'Renamed', redirect_uris: [REDIRECT, `${REDIRECT}2`] };
    const updated = await configure(answer, 'PUT', update);
    expect(updated.status).toBe(200);
    // Left out, grant_types returns to its default; the secret stays the same.
    expect(updated.json()).toMatchObject({
      client_name: 'Renamed',
      grant_types: ['authorization_code'],
    });
    expect(updated.json()).not.toHaveProperty('client_secret');
    const again = await tokensFor(answer);
    expect(again.status).toBe(200);

    const deleted = await configure(answer, 'DELETE');
    expect(deleted.status).toBe(204);
    expect((await h.get(endpointPath('userinfo'), bearer(access))).status).toBe(401);
    expect((await configure(answer, 'GET')).status).toBe(401);
    const refused = await browser(h).authorize({
      client_id: String(answer.client_id),
      redirect_uri: REDIRECT,
    });
    expect(refused.headers.location).toBeUndefined();
    expect(events.filter((event) => event.type.startsWith('client_'))).toEqual([
      expect.objectContaining({ type: 'client_registered', clientId: answer.client_id }),
      expect.objectContaining({ type: 'client_updated', clientId: answer.client_id }),
      expect.objectContaining({ type: 'client_deleted', clientId: answer.client_id }),
    ]);
    const serialized = JSON.stringify(events);
    for (const secret of [answer.client_secret, answer.registration_access_token, access]) {
      expect(serialized).not.toContain(String(secret));
    }
  });

  it('keeps neither the secret nor the registration access token in the clear', async () => {
    const answer = (await register(webApp)).json();
    const [write] = store.writesTo('registered_client');
    const record = await store.get<Record<string, unknown>>('registered_client', String(write?.id));
    const text = JSON.stringify(record);
    expect(text).not.toContain(String(answer.client_secret));
    expect(text).not.toContain(String(answer.registration_access_token));
    expect(record).toMatchObject({
      secret_digest: sha256(String(answer.client_secret)),
      registration_token_digest: sha256(String(answer.registration_access_token)),
    });
    expect(write?.options?.ttlSeconds).toBeUndefined();
  });

  it('ignores unknown metadata and echoes what it accepted', async () => {
    const answer = (
      await register({
        ...webApp,
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/cb'],
        scope: 'openid profile',
        logo_uri: 'https://app.example.org/logo.png',
        software_statement: 'not.a.jwt',
        skip_consent: true,
        client_secret: 'chosen-by-the-client-0123456789',
      })
    ).json();
    expect(answer).toMatchObject({
      token_endpoint_auth_method: 'none',
      application_type: 'native',
      redirect_uris: ['http://127.0.0.1/cb'],
      scope: 'openid profile',
    });
    for (const ignored of ['logo_uri', 'software_statement', 'skip_consent', 'client_secret']) {
      expect(answer).not.toHaveProperty(ignored);
    }
    // A native client's loopback redirect takes any port, and it never skips consent.
    const login = await browser(h).authorize({
      client_id: String(answer.client_id),
      redirect_uri: 'http://127.0.0.1:61234/cb',
      scope: 'openid',
    });
    expect(login.headers.location).toContain('/interaction/');
    const code = await codeFor(String(answer.client_id), 'http://127.0.0.1:61234/cb');
    const tokens = await h.post(TOKEN, {
      grant_type: 'authorization_code',
      code,
      client_id: String(answer.client_id),
      redirect_uri: 'http://127.0.0.1:61234/cb',
      code_verifier: CODE_VERIFIER,
    });
    expect(tokens.status).toBe(200);
  });

  it('refuses metadata outside the policy with the RFC 7591 codes, in every error dialect', async () => {
    await start({ initial_access_token: INITIAL_TOKEN, grant_types: ['authorization_code'] });
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ redirect_uris: ['http://app.example.org/cb'] }, 'invalid_redirect_uri', 'must be https'],
      [
        { redirect_uris: ['com.example.app:/cb'] },
        'invalid_redirect_uri',
        'scheme is not accepted',
      ],
      [
        { ...webApp, grant_types: ['refresh_token'] },
        'invalid_client_metadata',
        'refresh_token is not offered',
      ],
      [
        { ...webApp, token_endpoint_auth_method: 'client_secret_jwt' },
        'invalid_client_metadata',
        'client_secret_jwt is not offered',
      ],
      [
        { ...webApp, scope: 'openid admin' },
        'invalid_client_metadata',
        '"admin" is not offered'.replace(/"/g, "'"),
      ],
      [
        { ...webApp, token_endpoint_auth_method: 'private_key_jwt' },
        'invalid_client_metadata',
        'jwks: or jwks_uri is required',
      ],
    ];
    for (const [body, error, description] of cases) {
      const refused = await register(body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json().error).toBe(error);
      expect(String(refused.json().error_description)).toContain(description);
    }
    expect(store.writesTo('registered_client')).toEqual([]);
  });

  it('answers 401 invalid_token without the right initial access token; an open realm needs none', async () => {
    for (const headers of [{}, bearer('wrong-token'), bearer(`${INITIAL_TOKEN}x`)]) {
      const refused = await register(webApp, headers);
      expect(refused.status).toBe(401);
      expect(refused.json().error).toBe('invalid_token');
      expect(refused.headers['www-authenticate']).toMatch(/^Bearer realm=/);
    }
    await start({ open: true });
    expect((await register(webApp, {})).status).toBe(201);
  });

  it('answers 401 at the configuration endpoint for another token or another client', async () => {
    const one = (await register(webApp)).json();
    const other = (await register(webApp)).json();
    const stolen = await configure(one, 'GET', undefined, String(other.registration_access_token));
    expect(stolen.status).toBe(401);
    expect(stolen.json().error).toBe('invalid_token');
    expect((await configure(one, 'DELETE', undefined, 'x')).status).toBe(401);
    expect((await configure(one, 'GET')).status).toBe(200);
  });

  it('refuses a registration beyond max_clients with 429, and takes one again after a deletion', async () => {
    await start({ open: true, max_clients: 2 });
    const first = (await register(webApp, {})).json();
    expect((await register(webApp, {})).status).toBe(201);
    const refused = await register(webApp, {});
    expect(refused.status).toBe(429);
    expect(refused.json().error).toBe('temporarily_unavailable');
    await configure(first, 'DELETE');
    expect((await register(webApp, {})).status).toBe(201);
    expect(await h.provider.clients.listRegistered('test')).toHaveLength(2);
  });

  it('removes a client that got no token for unused_client_seconds, and keeps one in use', async () => {
    await start({ open: true, unused_client_seconds: 2 * DAY });
    const idle = (await register(webApp, {})).json();
    const busy = (await register(webApp, {})).json();
    const replace = vi.spyOn(store, 'replace');
    for (let day = 0; day < 3; day++) {
      clock.advance(DAY + 1);
      expect((await tokensFor(busy)).status).toBe(200);
      expect((await tokensFor(busy)).status).toBe(200);
    }
    expect(await h.provider.clients.listRegistered('test')).toEqual([busy.client_id]);
    expect((await configure(idle, 'GET')).status).toBe(401);
    expect(await store.get('registered_client', `test/${idle.client_id}`)).toBeUndefined();
    // Its last use is written once a day at most, not at every token.
    const touches = replace.mock.calls.filter(([namespace]) => namespace === 'registered_client');
    expect(touches).toHaveLength(3);
  });

  it('answers CORS for any origin, preflights included', async () => {
    const origin = 'https://spa.example.net';
    const preflight = await h.send({
      method: 'OPTIONS',
      path: REGISTER,
      query: '',
      headers: { origin },
    });
    expect(preflight.headers['access-control-allow-origin']).toBe(origin);
    const registered = await register(webApp, { ...bearer(INITIAL_TOKEN), origin });
    expect(registered.headers['access-control-allow-origin']).toBe(origin);
    const refused = await register(webApp, { origin });
    expect(refused.headers['access-control-allow-origin']).toBe(origin);
    const read = await h.send({
      method: 'GET',
      path: new URL(String(registered.json().registration_client_uri)).pathname,
      query: '',
      headers: { ...bearer(String(registered.json().registration_access_token)), origin },
    });
    expect(read.headers['access-control-allow-origin']).toBe(origin);
  });

  it("fetches a registered client's jwks_uri as an outside URL: private networks only when the realm allows them", async () => {
    const jwksUri = 'https://keys.example.org/jwks.json';
    const machine = {
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: jwksUri,
      grant_types: ['client_credentials'],
      scope: 'api:read',
    };
    const credentialsRequest = async (clientId: string) =>
      h.post(TOKEN, {
        grant_type: 'client_credentials',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await h.assertion(h.keys.privateKey, 'ES256', {
          iss: clientId,
          jti: crypto.randomUUID(),
        }),
      });
    for (const privateNetworks of [false, true]) {
      await start({
        open: true,
        grant_types: ['client_credentials'],
        private_networks: privateNetworks,
      });
      const answer = (await register(machine, {})).json();
      expect(answer).toMatchObject({ jwks_uri: jwksUri });
      expect(answer).not.toHaveProperty('client_secret');
      const tokens = await credentialsRequest(String(answer.client_id));
      // The in-process fetch cannot tell where an address is: an outside URL may only be fetched
      // where private networks are allowed (the Node.js transport checks them itself).
      expect(tokens.status).toBe(privateNetworks ? 200 : 400);
      if (!privateNetworks) expect(tokens.json().error).toBe('invalid_client');
      expect(fetched).toEqual(privateNetworks ? [jwksUri] : []);
    }
  });
});
