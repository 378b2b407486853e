import { payloadTooLargeResponse } from '@gatehouse-oidc/core/adapter';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { basicAuthorization, FORM_HEADERS, form, SECRETS } from '../support/fixtures.js';
import {
  BASE_URL,
  MAX_BODY_BYTES,
  PREFIX,
  SECOND_BASE_URL,
  SECOND_PREFIX,
} from './contract-setup.js';
import type { RunningApp } from './harnesses.js';
import { HELLO } from './hono-host.js';
import {
  call,
  chunkedBody,
  getWithHeaders,
  type Snapshot,
  type WireRequest,
  withoutRandomValues,
} from './wire.js';

// The adapter contract: the requests every host app with Gatehouse mounted (contractMounts) must
// answer alike, whatever the framework or the runtime.

const realmPath = (endpoint: string, prefix = PREFIX) => `${prefix}/oauth/test/${endpoint}`;
const DISCOVERY = realmPath('.well-known/openid-configuration');
/** RFC 8414 §3.1: the well-known segment between the host and the issuer's path. */
const atHostRoot = (name: string, realm = 'test') => `/.well-known/${name}${PREFIX}/oauth/${realm}`;
const expectMetadata = (snapshot: Snapshot) => {
  expect(snapshot.status).toBe(200);
  expect(snapshot.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(snapshot.body)).toMatchObject({
    issuer: `${BASE_URL}/oauth/test`,
    token_endpoint: `${BASE_URL}/oauth/test/token`,
  });
};
export const TOKEN = realmPath('token');
const INTROSPECT = realmPath('introspect');
const REVOKE = realmPath('revoke');

const postClient = { client_id: 'post-client', client_secret: SECRETS.post };
export const clientCredentials = { grant_type: 'client_credentials', ...postClient };
export const postForm = (path: string, body: string | Uint8Array): WireRequest => ({
  method: 'POST',
  path,
  headers: { ...FORM_HEADERS },
  body,
});
const errorBody = (error: string, description: string) =>
  JSON.stringify({ error, error_description: description });

export interface ContractCase {
  name: string;
  request: () => WireRequest;
  expected: (snapshot: Snapshot) => void;
  /** Still answered the same when the host app parsed the form before Gatehouse. */
  survivesPreParsing: boolean;
}

const tooLarge = `grant_type=client_credentials&padding=${'a'.repeat(MAX_BODY_BYTES)}`;
const expectTooLarge = (snapshot: Snapshot) => {
  const expected = payloadTooLargeResponse();
  expect(snapshot).toMatchObject({ status: 413, body: expected.body });
  expect(snapshot.headers['content-type']).toBe(expected.headers['content-type']);
};
export const expectError =
  (status: number, error: string, description: string) => (snapshot: Snapshot) => {
    expect(snapshot.status).toBe(status);
    expect(snapshot.body).toBe(errorBody(error, description));
    expect(snapshot.headers).toMatchObject({ 'cache-control': 'no-store', pragma: 'no-cache' });
  };
export const expectToken = (snapshot: Snapshot) => {
  expect(snapshot.status).toBe(200);
  expect(JSON.parse(snapshot.body)).toEqual({
    access_token: expect.any(String),
    token_type: 'Bearer',
    expires_in: expect.any(Number),
    scope: expect.any(String),
  });
};

export const CASES: ContractCase[] = [
  {
    name: 'discovery',
    request: () => ({ path: DISCOVERY }),
    expected: (snapshot) => {
      expect(snapshot.status).toBe(200);
      expect(JSON.parse(snapshot.body)).toMatchObject({
        issuer: `${BASE_URL}/oauth/test`,
        token_endpoint: `${BASE_URL}/oauth/test/token`,
      });
    },
    survivesPreParsing: true,
  },
  {
    name: 'RFC 8414 metadata below the issuer',
    request: () => ({ path: realmPath('.well-known/oauth-authorization-server') }),
    expected: expectMetadata,
    survivesPreParsing: true,
  },
  {
    name: 'RFC 8414 metadata at the host root',
    request: () => ({ path: atHostRoot('oauth-authorization-server') }),
    expected: expectMetadata,
    survivesPreParsing: true,
  },
  {
    name: 'OpenID metadata at the host root',
    request: () => ({ path: atHostRoot('openid-configuration') }),
    expected: expectMetadata,
    survivesPreParsing: true,
  },
  {
    name: 'HEAD of the metadata at the host root',
    request: () => ({ method: 'HEAD', path: atHostRoot('oauth-authorization-server') }),
    expected: (snapshot) => {
      expect(snapshot).toMatchObject({ status: 200, body: '' });
      expect(snapshot.headers['content-type']).toMatch(/^application\/json/);
    },
    survivesPreParsing: true,
  },
  {
    name: 'an unknown realm at the host root',
    request: () => ({ path: atHostRoot('oauth-authorization-server', 'nope') }),
    expected: expectError(404, 'not_found', 'unknown realm'),
    survivesPreParsing: true,
  },
  {
    name: 'the host root without the issuer path',
    request: () => ({ path: '/.well-known/openid-configuration/oauth/test' }),
    expected: expectError(404, 'not_found', 'no such endpoint'),
    survivesPreParsing: true,
  },
  {
    name: 'the bare well-known root',
    request: () => ({ path: '/.well-known/oauth-authorization-server' }),
    expected: expectError(404, 'not_found', 'no such endpoint'),
    survivesPreParsing: true,
  },
  {
    name: 'POST on the metadata at the host root',
    request: () => postForm(atHostRoot('oauth-authorization-server'), ''),
    expected: (snapshot) => {
      expectError(405, 'invalid_request', 'method not allowed')(snapshot);
      expect(snapshot.headers.allow).toBe('GET, HEAD, OPTIONS');
    },
    survivesPreParsing: true,
  },
  {
    name: 'HEAD discovery',
    request: () => ({ method: 'HEAD', path: DISCOVERY }),
    expected: (snapshot) => {
      expect(snapshot).toMatchObject({ status: 200, body: '' });
      expect(snapshot.headers['content-type']).toMatch(/^application\/json/);
    },
    survivesPreParsing: true,
  },
  {
    name: 'JWKS',
    request: () => ({ path: realmPath('jwks') }),
    expected: (snapshot) => {
      expect(snapshot.status).toBe(200);
      expect(snapshot.headers['content-type']).toMatch(/^application\/jwk-set\+json/);
      const { keys } = JSON.parse(snapshot.body) as { keys: Array<Record<string, unknown>> };
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) expect(key).not.toHaveProperty('d');
    },
    survivesPreParsing: true,
  },
  {
    name: 'CORS preflight of the token endpoint',
    request: () => ({
      method: 'OPTIONS',
      path: TOKEN,
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    }),
    expected: (snapshot) => {
      expect(snapshot.status).toBe(204);
      expect(snapshot.headers).toMatchObject({
        'access-control-allow-origin': 'https://app.example.com',
        'access-control-allow-methods': 'POST',
        vary: 'Origin',
      });
    },
    survivesPreParsing: true,
  },
  {
    name: 'client_credentials with client_secret_post',
    request: () => postForm(TOKEN, form(clientCredentials)),
    expected: expectToken,
    survivesPreParsing: true,
  },
  {
    name: 'client_credentials with client_secret_basic',
    request: () => ({
      ...postForm(TOKEN, form({ grant_type: 'client_credentials' })),
      headers: {
        ...FORM_HEADERS,
        authorization: basicAuthorization('basic-client', SECRETS.basic),
      },
    }),
    expected: expectToken,
    survivesPreParsing: true,
  },
  {
    name: 'wrong client_secret_basic secret',
    request: () => ({
      ...postForm(TOKEN, form({ grant_type: 'client_credentials' })),
      headers: { ...FORM_HEADERS, authorization: basicAuthorization('basic-client', 'wrong') },
    }),
    expected: (snapshot) => {
      expectError(401, 'invalid_client', 'client authentication failed')(snapshot);
      expect(snapshot.headers['www-authenticate']).toMatch(/^Basic /);
    },
    survivesPreParsing: true,
  },
  {
    name: 'unknown realm',
    request: () => ({ path: `${PREFIX}/oauth/nope/.well-known/openid-configuration` }),
    expected: expectError(404, 'not_found', 'unknown realm'),
    survivesPreParsing: true,
  },
  {
    name: 'unknown endpoint',
    request: () => ({ path: realmPath('nope') }),
    expected: expectError(404, 'not_found', 'no such endpoint'),
    survivesPreParsing: true,
  },
  {
    name: 'the bare mount prefix',
    request: () => ({ path: PREFIX }),
    expected: expectError(404, 'not_found', 'no such endpoint'),
    survivesPreParsing: true,
  },
  {
    name: 'GET on the token endpoint',
    request: () => ({ path: TOKEN }),
    expected: (snapshot) => {
      expectError(405, 'invalid_request', 'method not allowed')(snapshot);
      expect(snapshot.headers.allow).toBe('POST, OPTIONS');
    },
    survivesPreParsing: true,
  },
  {
    name: 'POST on discovery',
    request: () => postForm(DISCOVERY, ''),
    expected: (snapshot) => {
      expectError(405, 'invalid_request', 'method not allowed')(snapshot);
      expect(snapshot.headers.allow).toBe('GET, HEAD, OPTIONS');
    },
    survivesPreParsing: true,
  },
  {
    name: 'a body over the limit, with content-length',
    request: () => postForm(TOKEN, tooLarge),
    expected: expectTooLarge,
    survivesPreParsing: true,
  },
  {
    // The host's parser has its own, larger limit and reads a chunked body before Gatehouse can.
    name: 'a body over the limit, chunked',
    request: () => ({ ...postForm(TOKEN, ''), body: chunkedBody(tooLarge) }),
    expected: expectTooLarge,
    survivesPreParsing: false,
  },
  {
    name: 'a text/plain body',
    request: () => ({
      ...postForm(TOKEN, form(clientCredentials)),
      headers: { 'content-type': 'text/plain' },
    }),
    expected: expectError(
      400,
      'invalid_request',
      'the request body must be application/x-www-form-urlencoded',
    ),
    survivesPreParsing: true,
  },
  {
    name: 'a JSON body',
    request: () => ({
      ...postForm(TOKEN, JSON.stringify(clientCredentials)),
      headers: { 'content-type': 'application/json' },
    }),
    expected: expectError(
      400,
      'invalid_request',
      'the request body must be application/x-www-form-urlencoded',
    ),
    survivesPreParsing: true,
  },
  {
    name: 'a body without content-type',
    request: () => ({
      method: 'POST',
      path: TOKEN,
      body: new TextEncoder().encode(form(clientCredentials)),
    }),
    expected: expectError(
      400,
      'invalid_request',
      'the request body must be application/x-www-form-urlencoded',
    ),
    survivesPreParsing: true,
  },
  {
    name: 'a repeated parameter',
    request: () => postForm(TOKEN, `${form(clientCredentials)}&client_id=basic-client`),
    expected: expectError(400, 'invalid_request', 'a parameter is repeated'),
    survivesPreParsing: true,
  },
  {
    name: '__proto__ and constructor parameters',
    request: () => postForm(TOKEN, `__proto__=x&constructor=y&${form(clientCredentials)}`),
    expected: expectToken,
    survivesPreParsing: true,
  },
  {
    name: '__proto__ as client_id',
    request: () => postForm(TOKEN, form({ ...clientCredentials, client_id: '__proto__' })),
    expected: expectError(400, 'invalid_client', 'client authentication failed'),
    survivesPreParsing: true,
  },
  {
    // qs keeps malformed escapes as literal text, so a pre-parsed body cannot tell them apart.
    name: 'malformed percent-encoding in the body',
    request: () => postForm(TOKEN, `${form(clientCredentials)}&scope=%ZZ`),
    expected: expectError(400, 'invalid_request', 'malformed percent-encoding'),
    survivesPreParsing: false,
  },
  {
    name: 'malformed percent-encoding in the query',
    request: () => postForm(`${TOKEN}?x=%E0%A4%A`, form(clientCredentials)),
    expected: expectError(400, 'invalid_request', 'malformed percent-encoding'),
    survivesPreParsing: true,
  },
  {
    name: 'invalid UTF-8 bytes in the body',
    request: () =>
      postForm(
        TOKEN,
        new Uint8Array([...new TextEncoder().encode(`${form(clientCredentials)}&scope=`), 0xff]),
      ),
    expected: expectError(400, 'invalid_request', 'the request is not valid UTF-8'),
    survivesPreParsing: false,
  },
];

/**
 * @hono/node-server labels every response without a content-type `text/plain`, even an empty
 * one (a revocation, a preflight); with nothing to type, only status, body and the other headers
 * are compared.
 */
function untypedWhenEmpty(snapshot: Snapshot): Snapshot {
  if (snapshot.body !== '' || !snapshot.headers['content-type']?.startsWith('text/plain')) {
    return snapshot;
  }
  return { ...snapshot, headers: { ...snapshot.headers, 'content-type': null } };
}

/** Snapshots by case name, then by harness name, to compare across harnesses at the end. */
export class SnapshotRecorder {
  readonly #recorded = new Map<string, Map<string, Snapshot>>();

  record(caseName: string, harness: string, snapshot: Snapshot): void {
    const byHarness = this.#recorded.get(caseName) ?? new Map<string, Snapshot>();
    byHarness.set(harness, withoutRandomValues(untypedWhenEmpty(snapshot)));
    this.#recorded.set(caseName, byHarness);
  }

  /** Checks that `harnesses` harnesses recorded the case, all with the same snapshot. */
  expectIdentical(caseName: string, harnesses: number): void {
    const snapshots = [...(this.#recorded.get(caseName) ?? new Map<string, Snapshot>()).entries()];
    expect(snapshots.map(([harness]) => harness)).toHaveLength(harnesses);
    const [, first] = snapshots[0] ?? [];
    for (const [harness, snapshot] of snapshots) expect(snapshot, harness).toEqual(first);
  }
}

/** The names of everything `adapterContract` records. */
export const RECORDED_CASES = [
  ...CASES.map((c) => c.name),
  'introspection of an active token',
  'revocation',
  'introspection of a revoked token',
];

/** Keeps the app `start` started for the caller's `describe`, and closes it after. */
export function useRunningApp(start: () => Promise<RunningApp>): () => RunningApp {
  let app: RunningApp | undefined;
  beforeAll(async () => {
    app = await start();
  });
  afterAll(() => app?.close());
  return () => {
    if (!app) throw new Error('the app did not start');
    return app;
  };
}

/** The contract's tests against one running host app, inside the caller's `describe`. */
export function adapterContract(
  harnessName: string,
  app: () => RunningApp,
  recorder: SnapshotRecorder,
): void {
  it.each(CASES)('answers $name', async ({ name, request, expected }) => {
    const snapshot = await call(app().origin, request());
    expected(snapshot);
    recorder.record(name, harnessName, snapshot);
  });

  it('issues, introspects and revokes a token', async () => {
    const { origin } = app();
    const issued = await call(origin, postForm(TOKEN, form(clientCredentials)));
    const { access_token: token } = JSON.parse(issued.body) as { access_token: string };
    const introspect = () => call(origin, postForm(INTROSPECT, form({ token, ...postClient })));

    const active = await introspect();
    expect(active.status).toBe(200);
    expect(JSON.parse(active.body)).toMatchObject({ active: true, client_id: 'post-client' });
    const revoked = await call(origin, postForm(REVOKE, form({ token, ...postClient })));
    expect(revoked).toMatchObject({ status: 200, body: '' });
    const inactive = await introspect();
    expect(JSON.parse(inactive.body)).toEqual({ active: false });

    recorder.record('introspection of an active token', harnessName, active);
    recorder.record('revocation', harnessName, revoked);
    recorder.record('introspection of a revoked token', harnessName, inactive);
  });

  it('takes the issuer from configuration, not from Host or X-Forwarded-*', async () => {
    const { origin } = app();
    const forged = await getWithHeaders(origin, DISCOVERY, {
      host: 'evil.example',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'http',
      forwarded: 'host=evil.example;proto=http',
    });
    expect(forged).toBe((await call(origin, { path: DISCOVERY })).body);
    expect(forged).not.toContain('evil.example');
  });

  it('serves a second mount under its own prefix and configuration', async () => {
    const { origin } = app();
    const discovery = await call(origin, {
      path: realmPath('.well-known/openid-configuration', SECOND_PREFIX),
    });
    expect(JSON.parse(discovery.body)).toMatchObject({ issuer: `${SECOND_BASE_URL}/oauth/test` });
    expectToken(
      await call(origin, postForm(realmPath('token', SECOND_PREFIX), form(clientCredentials))),
    );
  });

  it("leaves the host app's own routes, parsers and limits alone", async () => {
    const { origin } = app();
    expect(await call(origin, { path: '/hello' })).toMatchObject({ status: 200, body: HELLO });
    // Larger than Gatehouse's body limit: that limit and its 413 stay inside Gatehouse's mount.
    const payload = { text: 'x'.repeat(MAX_BODY_BYTES * 2) };
    const echoed = await call(origin, {
      method: 'POST',
      path: '/echo',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    expect(echoed.status).toBe(200);
    expect(JSON.parse(echoed.body)).toEqual(payload);
  });
}
