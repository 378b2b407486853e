import {
  type Accounts,
  type AuthenticatorPush,
  type CappedRecordOptions,
  type ClientInput,
  createProvider,
  type GatehouseResponse,
  type JwsSigner,
  type JwsVerifier,
  MemoryStore,
  type Provider,
  type ProviderOptions,
  type RealmInput,
  type RecordOptions,
} from '@gatehouse-oidc/core';
import { type FakeClock, fakeClock } from '@gatehouse-oidc/core/testing';
import { nodeCryptoVerifier } from '@gatehouse-oidc/node-crypto';
import type { CryptoKey } from 'jose';
import { expect } from 'vitest';
import {
  basicAuthorization,
  type ClientKeyPair,
  clientAssertion,
  clientKeyPair,
  FORM_HEADERS,
  form,
  SECRETS,
  TEST_ACCOUNTS,
  testRealm,
} from '../support/fixtures.js';

export { basicAuthorization };

export const BASE_URL = 'https://id.example.com';
export const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** Path of an endpoint of a realm, as the provider is mounted at the root. */
export const endpointPath = (endpoint: string, realm = 'test') => `/oauth/${realm}/${endpoint}`;
export const TOKEN = endpointPath('token');
export const INTROSPECT = endpointPath('introspect');
export const REVOKE = endpointPath('revoke');

/** A MemoryStore that remembers every write, so tests can see what the provider persisted. */
export class RecordingStore extends MemoryStore {
  readonly writes: Array<{ namespace: string; id: string; options: RecordOptions | undefined }> =
    [];

  override async set<T>(
    namespace: string,
    id: string,
    value: T,
    options?: RecordOptions,
  ): Promise<void> {
    this.writes.push({ namespace, id, options });
    return super.set(namespace, id, value, options);
  }

  override async add<T>(
    namespace: string,
    id: string,
    value: T,
    options?: RecordOptions,
  ): Promise<boolean> {
    this.writes.push({ namespace, id, options });
    return super.add(namespace, id, value, options);
  }

  override async setCapped<T>(
    namespace: string,
    id: string,
    value: T,
    options: CappedRecordOptions,
  ): Promise<number> {
    this.writes.push({ namespace, id, options });
    return super.setCapped(namespace, id, value, options);
  }

  writesTo(namespace: string) {
    return this.writes.filter((write) => write.namespace === namespace);
  }
}

export interface TestResponse extends GatehouseResponse {
  json(): Record<string, unknown>;
}

/** Form fields and headers that authenticate a client. */
export interface Credentials {
  fields: Record<string, string>;
  headers: Record<string, string>;
}

export interface HarnessOptions {
  /** Merged over the test realm (see test/support/fixtures.ts). */
  realm?: Partial<RealmInput>;
  /** Clients added to the test realm's own. */
  extraClients?: ClientInput[];
  /** Further realms served by the same provider. */
  otherRealms?: RealmInput[];
  /** Builds the store on the harness clock; a plain RecordingStore by default. */
  store?: (now: () => number) => RecordingStore;
  /** Receives the errors the provider reports to operators. */
  onError?: (error: unknown) => void;
  /** The clock to run on; harnesses that share a store share one clock. */
  clock?: FakeClock;
  /** Signs the realm's tokens; the provider's WebCrypto default otherwise. */
  signer?: JwsSigner;
  /** Checks the signatures of JWTs presented; the provider's WebCrypto default otherwise. */
  verifier?: JwsVerifier;
  /** The user store; `TEST_ACCOUNTS` (test/support/fixtures.ts) by default. */
  accounts?: Accounts;
  /** For realms with CIBA. */
  authenticatorPush?: AuthenticatorPush;
  limits?: ProviderOptions['limits'];
  /** Receives the provider's events. */
  onEvent?: ProviderOptions['onEvent'];
  /** Traces and metrics. */
  instrumentation?: ProviderOptions['instrumentation'];
  /** Outbound calls (jwks_uri, back-channel logout); the global fetch by default. */
  fetch?: typeof fetch;
  logoutMessages?: ProviderOptions['logoutMessages'];
  allowClientIdMetadataDocument?: ProviderOptions['allowClientIdMetadataDocument'];
}

export type Harness = Awaited<ReturnType<typeof createHarness>>;

/** A provider over the test realm with a fake clock and a recording store, driven in-process. */
/**
 * The verifier asked for, else node:crypto's when the run sets `GATEHOUSE_TEST_VERIFIER=node`
 * (the same suites then prove both verifiers), else the provider's WebCrypto default.
 */
function verifierOption(verifier: JwsVerifier | undefined): { verifier?: JwsVerifier } {
  if (verifier) return { verifier };
  return process.env.GATEHOUSE_TEST_VERIFIER === 'node' ? { verifier: nodeCryptoVerifier() } : {};
}

export async function createHarness(options: HarnessOptions = {}) {
  const clock = options.clock ?? fakeClock();
  const keys: ClientKeyPair = await clientKeyPair();
  const base = testRealm(keys, options.realm);
  const realm: RealmInput = {
    ...base,
    clients: [...(base.clients ?? []), ...(options.extraClients ?? [])],
  };
  const store = options.store?.(clock.now) ?? new RecordingStore({ now: clock.now });
  const provider: Provider = createProvider({
    baseUrl: BASE_URL,
    realms: [realm, ...(options.otherRealms ?? [])],
    store,
    now: clock.now,
    ...(options.onError ? { onError: options.onError } : {}),
    ...(options.signer ? { signer: options.signer } : {}),
    ...verifierOption(options.verifier),
    accounts: options.accounts ?? TEST_ACCOUNTS,
    ...(options.authenticatorPush ? { authenticatorPush: options.authenticatorPush } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.instrumentation ? { instrumentation: options.instrumentation } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.logoutMessages ? { logoutMessages: options.logoutMessages } : {}),
    ...(options.allowClientIdMetadataDocument
      ? { allowClientIdMetadataDocument: options.allowClientIdMetadataDocument }
      : {}),
  });
  const issuer = (realmName = 'test') => `${BASE_URL}/oauth/${realmName}`;
  const nowSeconds = () => Math.floor(clock.now() / 1000);

  async function send(request: Parameters<Provider['handle']>[0]): Promise<TestResponse> {
    const response = await provider.handle(request);
    return { ...response, json: () => JSON.parse(response.body ?? 'null') };
  }

  const post = (
    path: string,
    fields: Record<string, string>,
    headers: Record<string, string> = {},
  ) =>
    send({
      method: 'POST',
      path,
      query: '',
      headers: { ...FORM_HEADERS, ...headers },
      body: form(fields),
    });

  const get = (path: string, headers: Record<string, string> = {}, query = '') =>
    send({ method: 'GET', path, query, headers });

  /** A client assertion timed by the fake clock; `iss`/`sub` default to the client, `aud` to the issuer. */
  function assertion(
    key: CryptoKey | Uint8Array,
    alg: string,
    claims: Partial<Parameters<typeof clientAssertion>[2]> & { iss: string },
    header: Record<string, unknown> = {},
  ): Promise<string> {
    return clientAssertion(key, alg, { aud: issuer(), iat: nowSeconds(), ...claims }, header);
  }

  /** Credentials for each client of the test realm, by its registered method. */
  async function credentialsOf(clientId: string): Promise<Credentials> {
    const basic = (secret: string) => ({
      fields: {},
      headers: { authorization: basicAuthorization(clientId, secret) },
    });
    const assertionFields = (client_assertion: string) => ({
      fields: { client_assertion, client_assertion_type: JWT_BEARER },
      headers: {},
    });
    switch (clientId) {
      case 'post-client':
        return { fields: { client_id: clientId, client_secret: SECRETS.post }, headers: {} };
      case 'other-api':
        return { fields: { client_id: clientId, client_secret: SECRETS.other }, headers: {} };
      case 'web-app':
        return { fields: { client_id: clientId, client_secret: SECRETS.web }, headers: {} };
      case 'basic-client':
        return basic(SECRETS.basic);
      case 'api':
        return basic(SECRETS.api);
      case 'jwt-client':
        return assertionFields(
          await assertion(new TextEncoder().encode(SECRETS.jwt), 'HS256', { iss: clientId }),
        );
      case 'key-client':
        return assertionFields(await assertion(keys.privateKey, 'ES256', { iss: clientId }));
      case 'native-client':
        return { fields: { client_id: clientId }, headers: {} };
      default:
        throw new Error(`no credentials for ${clientId}`);
    }
  }

  /** POSTs `fields` to `path` authenticated as the client. */
  async function postAs(
    clientId: string,
    path: string,
    fields: Record<string, string>,
  ): Promise<TestResponse> {
    const credentials = await credentialsOf(clientId);
    return post(path, { ...fields, ...credentials.fields }, credentials.headers);
  }

  /** Issues a client-credentials access token to the client; fails the test if that fails. */
  async function issueToken(
    clientId = 'post-client',
    fields: Record<string, string> = {},
  ): Promise<string> {
    const response = await postAs(clientId, TOKEN, { grant_type: 'client_credentials', ...fields });
    if (response.status !== 200)
      throw new Error(`token request failed: ${response.status} ${response.body}`);
    return response.json().access_token as string;
  }

  /** The introspection answer for `token` as seen by the client. */
  const introspect = (clientId: string, token: string, fields: Record<string, string> = {}) =>
    postAs(clientId, INTROSPECT, { token, ...fields });

  return {
    clock,
    keys,
    store,
    provider,
    issuer,
    nowSeconds,
    send,
    post,
    get,
    assertion,
    credentialsOf,
    postAs,
    issueToken,
    introspect,
  };
}

/** The headers every token, introspection and revocation answer must carry. */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;
export const JSON_TYPE = 'application/json; charset=utf-8';

/** Asserts an OAuth error answer: status, code, JSON body and the no-store headers. */
export function expectOAuthError(response: TestResponse, status: number, error: string): void {
  expect({ status: response.status, error: response.json().error }).toEqual({ status, error });
  expect(response.headers).toMatchObject({ 'content-type': JSON_TYPE, ...NO_STORE });
}
