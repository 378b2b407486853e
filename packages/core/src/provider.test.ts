import { beforeAll, describe, expect, it, vi } from 'vitest';
import { clientKeyPair, FORM_HEADERS, form, SECRETS, testRealm } from '../test-support/fixtures.js';
import { bodyLimit } from './adapter/index.js';
import { ConfigError } from './config/issues.js';
import type { RealmInput } from './config/realm.js';
import type { SigningAlgorithm } from './config/signing-algorithms.js';
import { StoreUnavailableError } from './errors/oauth-error.js';
import type { GatehouseRequest, GatehouseResponse } from './http/types.js';
import { webCryptoKeyPair } from './keys/generate.js';
import type { KeyPairJwks } from './keys/signing-key.js';
import { webCryptoSigner } from './keys/webcrypto-signer.js';
import { fetchTransport } from './outbound/fetch-transport.js';
import { createProvider, type ProviderOptions } from './provider.js';
import type { Store } from './store/store.js';
import { fakeClock } from './testing/clock.js';

const BASE_URL = 'https://id.example.com';
let realm: RealmInput;

beforeAll(async () => {
  realm = testRealm(await clientKeyPair());
});

function provider(options: Partial<ProviderOptions> = {}) {
  return createProvider({ baseUrl: BASE_URL, realms: [realm], now: fakeClock().now, ...options });
}

function request(
  method: string,
  path: string,
  extra: Partial<GatehouseRequest> = {},
): GatehouseRequest {
  return { method, path, query: '', headers: {}, ...extra };
}

const clientCredentials = (secret: string = SECRETS.post) =>
  request('POST', '/oauth/test/token', {
    headers: FORM_HEADERS,
    body: form({
      grant_type: 'client_credentials',
      client_id: 'post-client',
      client_secret: secret,
    }),
  });

/** A store every method of which fails with `error`. */
function failingStore(error: unknown): Store {
  const fail = async (): Promise<never> => {
    throw error;
  };
  return {
    get: fail,
    set: fail,
    add: fail,
    consume: fail,
    read: fail,
    replace: fail,
    delete: fail,
    listGrant: fail,
    revokeGrant: fail,
    setCapped: fail,
    ping: fail,
    metrics: () => ({ evicted: 0, shed: 0, refused: 0 }),
    close: async () => {},
  };
}

const json = (response: GatehouseResponse) =>
  JSON.parse(response.body ?? 'null') as Record<string, unknown>;

function configIssues(options: Partial<ProviderOptions>) {
  try {
    provider(options);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  return [];
}

describe('createProvider options', () => {
  it.each([
    ['ftp://id.example.com', 'must be an absolute http(s) URL'],
    ['id.example.com', 'must be an absolute http(s) URL'],
    ['/oidc', 'must be an absolute http(s) URL'],
    ['https://id.example.com/?tenant=a', 'must not contain a query or a fragment'],
    ['https://id.example.com/#top', 'must not contain a query or a fragment'],
  ])('rejects the base URL %s', (baseUrl, message) => {
    expect(configIssues({ baseUrl })).toEqual([{ path: 'baseUrl', message }]);
  });

  it.each([
    ['https://id.example.com/', 'https://id.example.com/oauth/test'],
    ['http://127.0.0.1:3000/auth//', 'http://127.0.0.1:3000/auth/oauth/test'],
    ['https://id.example.com/auth', 'https://id.example.com/auth/oauth/test'],
  ])('strips trailing slashes from %s', async (baseUrl, issuer) => {
    expect((await provider({ baseUrl }).realm('test'))?.issuer).toBe(issuer);
  });

  it.each([1023, 16 * 1024 * 1024 + 1, 2048.5, 0])('rejects maxBodyBytes %s', (maxBodyBytes) => {
    expect(configIssues({ maxBodyBytes })).toEqual([
      { path: 'maxBodyBytes', message: expect.any(String) },
    ]);
  });

  it('accepts the bounds of maxBodyBytes and defaults to 64 KiB', () => {
    expect(bodyLimit(provider({ maxBodyBytes: 1024 }))).toBe(1024);
    expect(bodyLimit(provider({ maxBodyBytes: 16 * 1024 * 1024 }))).toBe(16 * 1024 * 1024);
    expect(bodyLimit(provider())).toBe(64 * 1024);
  });

  it('keeps the body limit and the store off the provider the host holds', () => {
    const made = provider();
    expect(Object.keys(made).sort()).toEqual(
      [
        'ciba',
        'device',
        'clients',
        'close',
        'grants',
        'handle',
        'interactions',
        'prepareKeys',
        'realm',
        'rotateKeys',
        'sessions',
      ].sort(),
    );
    // A host's wrapper that spreads the provider keeps its limit; an object built by hand has none.
    expect(bodyLimit({ ...made, handle: made.handle })).toBe(64 * 1024);
    expect(() => bodyLimit(Object.fromEntries(Object.entries(made)) as typeof made)).toThrow(
      'not a provider made by createProvider',
    );
  });

  it('lists both option problems at once', () => {
    expect(
      configIssues({ baseUrl: 'ftp://x', maxBodyBytes: 1 }).map((issue) => issue.path),
    ).toEqual(['baseUrl', 'maxBodyBytes']);
  });

  it('validates static realms when it is created', () => {
    expect(configIssues({ realms: [{ name: 'a', scopes: ['x', 'x'] }] })).toEqual([
      { path: 'realms[0].scopes[1]', message: 'is a duplicate' },
    ]);
  });
});

/** The issues createProvider throws for options as a JavaScript caller may pass them. */
function issuesOf(options: unknown) {
  try {
    createProvider(options as ProviderOptions);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  return [];
}

describe('createProvider signer', () => {
  it("makes the realm's keys with the signer's generateKeyPair when it has one", async () => {
    const made: KeyPairJwks[] = [];
    const signer = {
      ...webCryptoSigner(),
      generateKeyPair: async (alg: SigningAlgorithm) => {
        const pair = await webCryptoKeyPair(alg);
        made.push(pair);
        return pair;
      },
    };
    const response = await provider({ signer }).handle(request('GET', '/oauth/test/jwks'));
    expect(response.status).toBe(200);
    const published = (json(response) as { keys: Array<{ x?: string; n?: string }> }).keys;
    // Every key the realm publishes (its signing_alg's and RS256 for ID tokens) is one it made.
    expect(made.length).toBeGreaterThan(0);
    expect(published.map((key) => key.x ?? key.n).sort()).toEqual(
      made.map(({ publicJwk }) => publicJwk.x ?? publicJwk.n).sort(),
    );
  });
});

describe('createProvider options at run time', () => {
  it('refuses a call without options', () => {
    for (const options of [undefined, null, 'https://id.example.com']) {
      expect(issuesOf(options)).toEqual([
        { path: '', message: 'createProvider takes an options object: { baseUrl, realms, … }' },
      ]);
    }
  });

  it('names realm: instead of realms:, and the missing realms', () => {
    expect(issuesOf({ baseUrl: BASE_URL, realm: [realm] })).toEqual([
      { path: 'realms', message: 'must be a list of realm configurations or a loader function' },
      { path: 'realm', message: 'is not an option of createProvider; did you mean realms?' },
    ]);
  });

  it('refuses realms given as an object', () => {
    expect(issuesOf({ baseUrl: BASE_URL, realms: { test: realm } })).toEqual([
      { path: 'realms', message: 'must be a list of realm configurations or a loader function' },
    ]);
  });

  it('names each unknown option, with the option meant when only its case differs', () => {
    expect(
      issuesOf({ baseUrl: BASE_URL, realms: [realm], interactionURL: () => '', colour: 'blue' }),
    ).toEqual([
      {
        path: 'interactionURL',
        message: 'is not an option of createProvider; did you mean interactionUrl?',
      },
      { path: 'colour', message: 'is not an option of createProvider' },
    ]);
  });

  it("checks the kind of the host's objects and functions", () => {
    expect(
      issuesOf({ baseUrl: BASE_URL, realms: [realm], store: 'memory', now: 0, onError: {} }).map(
        (issue) => issue.path,
      ),
    ).toEqual(['store', 'now', 'onError']);
  });

  it('takes one way out: an outbound transport or the fetch of the default one, not both', () => {
    const outbound = fetchTransport();
    expect(issuesOf({ baseUrl: BASE_URL, realms: [realm], outbound, fetch })).toEqual([
      {
        path: 'fetch',
        message: 'is the fetch of the default transport: give outbound or fetch, not both',
      },
    ]);
    expect(issuesOf({ baseUrl: BASE_URL, realms: [realm], outbound })).toEqual([]);
  });

  it('accepts a loader function for realms', async () => {
    const loaded = createProvider({
      baseUrl: BASE_URL,
      realms: async (name) => (name === 'test' ? realm : undefined),
    });
    expect((await loaded.realm('test'))?.name).toBe('test');
  });
});

describe('provider.handle routing', () => {
  it('answers 404 JSON for an unknown realm', async () => {
    const response = await provider().handle(
      request('GET', '/oauth/nope/.well-known/openid-configuration'),
    );
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(json(response)).toEqual({ error: 'not_found', error_description: 'unknown realm' });
  });

  it.each([
    '/oauth/test/registration',
    '/oauth/test/jwks/extra',
    '/oauth/test',
    '/oauth/test/',
    '/',
    '/token',
  ])('answers 404 for the unknown endpoint %s', async (path) => {
    const response = await provider().handle(request('GET', path));
    expect(response.status).toBe(404);
    expect(json(response)).toEqual({ error: 'not_found', error_description: 'no such endpoint' });
  });

  it.each([
    ['token', 'POST, OPTIONS'],
    ['introspect', 'POST'],
    ['revoke', 'POST, OPTIONS'],
  ])('answers 405 with Allow to GET on the POST endpoint %s', async (path, allow) => {
    const response = await provider().handle(request('GET', `/oauth/test/${path}`));
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(json(response).error).toBe('invalid_request');
  });

  it('answers 405 with Allow to POST on discovery', async () => {
    const response = await provider().handle(
      request('POST', '/oauth/test/.well-known/openid-configuration'),
    );
    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it.each(['.well-known/openid-configuration', 'jwks'])(
    'answers HEAD on %s with the GET status and headers and no body',
    async (path) => {
      const gatehouse = provider();
      const get = await gatehouse.handle(request('GET', `/oauth/test/${path}`));
      const head = await gatehouse.handle(request('HEAD', `/oauth/test/${path}`));
      expect(get.body).toBeTruthy();
      expect(head).toEqual({ status: get.status, headers: get.headers, body: undefined });
    },
  );
});

describe('provider.handle failures', () => {
  const internalMessage = 'connection to db.internal:5432 failed with password hunter2';

  it('turns an unexpected store error into 500 server_error and reports it', async () => {
    const error = new Error(internalMessage);
    const onError = vi.fn();
    const jwks = request('GET', '/oauth/test/jwks');
    const response = await provider({ store: failingStore(error), onError }).handle(jwks);
    expect(response.status).toBe(500);
    expect(json(response)).toEqual({
      error: 'server_error',
      error_description: 'an unexpected error occurred',
    });
    expect(onError).toHaveBeenCalledExactlyOnceWith(error, jwks);
  });

  it('turns StoreUnavailableError into 503 temporarily_unavailable', async () => {
    const error = new StoreUnavailableError('redis timed out', {
      cause: new Error(internalMessage),
    });
    const onError = vi.fn();
    const response = await provider({ store: failingStore(error), onError }).handle(
      clientCredentials(),
    );
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(json(response)).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'the service is temporarily unavailable',
    });
    expect(onError).toHaveBeenCalledExactlyOnceWith(error, expect.anything());
  });

  it('still answers when the onError hook throws', async () => {
    const onError = vi.fn(() => {
      throw new Error('logger down');
    });
    const response = await provider({ store: failingStore(new Error('boom')), onError }).handle(
      request('GET', '/oauth/test/jwks'),
    );
    expect(response.status).toBe(500);
    expect(onError).toHaveBeenCalledOnce();
  });

  it.each([
    ['a loader that throws', () => Promise.reject(new Error(internalMessage))],
    ['a loader that returns an invalid realm', () => ({ name: 'test', access_token_ttl: -1 })],
  ])('answers 500 for %s', async (_, load) => {
    const onError = vi.fn();
    const response = await provider({ realms: load as ProviderOptions['realms'], onError }).handle(
      request('GET', '/oauth/test/jwks'),
    );
    expect(response.status).toBe(500);
    expect(json(response).error).toBe('server_error');
    expect(onError).toHaveBeenCalledOnce();
  });

  it('puts no stack trace, internal message or secret into any error body', async () => {
    const error = new Error(internalMessage);
    const responses = await Promise.all([
      provider({ store: failingStore(error), onError: () => {} }).handle(clientCredentials()),
      provider({
        store: failingStore(new StoreUnavailableError(internalMessage)),
        onError: () => {},
      }).handle(clientCredentials()),
      provider().handle(clientCredentials('wrong-secret-0123456789abcdef')),
      provider().handle(
        request('GET', '/oauth/test/token', { query: `client_secret=${SECRETS.post}` }),
      ),
      provider().handle(
        request('POST', '/oauth/test/token', {
          query: `client_secret=${SECRETS.post}`,
          headers: FORM_HEADERS,
        }),
      ),
    ]);
    expect(responses.map((response) => response.status)).toEqual([500, 503, 400, 405, 400]);
    for (const response of responses) {
      const body = response.body ?? '';
      expect(body).not.toMatch(/\bat .+:\d+|Error:|hunter2|db\.internal/);
      expect(body).not.toContain(SECRETS.post);
      expect(body).not.toContain('wrong-secret');
    }
  });
});

describe('issuer', () => {
  it('never comes from Host or X-Forwarded-* headers', async () => {
    const spoofed = {
      host: 'evil.example',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'http',
      'x-forwarded-prefix': '/evil',
      forwarded: 'host=evil.example;proto=http',
    };
    const response = await provider().handle(
      request('GET', '/oauth/test/.well-known/openid-configuration', { headers: spoofed }),
    );
    const metadata = json(response);
    expect(metadata.issuer).toBe('https://id.example.com/oauth/test');
    expect(metadata.token_endpoint).toBe('https://id.example.com/oauth/test/token');
    expect(response.body).not.toContain('evil');
  });
});
