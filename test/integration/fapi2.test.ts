import type { RealmInput } from '@gatehouse-oidc/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { dpopKey } from '../support/dpop.js';
import { type ClientKeyPair, clientKeyPair, WEB_REDIRECT_URI } from '../support/fixtures.js';
import { browser, CODE_VERIFIER, S256_CHALLENGE } from './browser.js';
import {
  createHarness,
  endpointPath,
  expectOAuthError,
  type Harness,
  JWT_BEARER,
  type TestResponse,
} from './harness.js';

/**
 * A realm of `profile: "fapi2"` at request time (docs/fapi2.md), beside the ordinary test realm
 * of the same provider. The OpenID Foundation's modules run over HTTP in
 * test/conformance/fapi2-security-profile.test.ts; these are the rules one by one.
 */

const BANK = 'bank';
const PAR = endpointPath('par', BANK);
const TOKEN = endpointPath('token', BANK);

let keys: ClientKeyPair;
let h: Harness;
let b: ReturnType<typeof browser>;

function bankRealm(): RealmInput {
  return {
    name: BANK,
    profile: 'fapi2',
    scopes: ['openid', 'accounts'],
    clients: [
      {
        client_id: 'bank-app',
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [keys.publicJwk] } as never,
        redirect_uris: [WEB_REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
        scope: 'openid accounts',
        skip_consent: true,
      },
    ],
  };
}

beforeEach(async () => {
  keys = await clientKeyPair();
  h = await createHarness({ otherRealms: [bankRealm()] });
  b = browser(h, undefined, BANK);
});

/** private_key_jwt for bank-app, addressed to the bank's issuer unless told otherwise. */
async function authentication(claims: { aud?: string | string[]; iat?: number } = {}) {
  const assertion = await h.assertion(keys.privateKey, 'ES256', {
    iss: 'bank-app',
    aud: h.issuer(BANK),
    ...claims,
  });
  return { client_assertion_type: JWT_BEARER, client_assertion: assertion };
}

const REQUEST = {
  response_type: 'code',
  redirect_uri: WEB_REDIRECT_URI,
  scope: 'openid accounts',
  state: 'state-123',
  code_challenge: S256_CHALLENGE,
  code_challenge_method: 'S256',
};

async function push(fields: Record<string, string> = {}, headers: Record<string, string> = {}) {
  return h.post(PAR, { ...REQUEST, ...(await authentication()), ...fields }, headers);
}

/** Pushes, signs alice in through the request_uri, and returns the code. */
async function codeFor(headers: Record<string, string> = {}): Promise<string> {
  const pushed = await push({}, headers);
  expect(pushed.status).toBe(201);
  const requestUri = String(pushed.json().request_uri);
  const arrival = await b.signIn({ client_id: 'bank-app', request_uri: requestUri });
  const code = new URL(String(arrival.headers.location)).searchParams.get('code');
  if (!code) throw new Error(`no code: ${arrival.headers.location}`);
  return code;
}

const redeem = async (code: string, proof?: string) =>
  h.post(
    TOKEN,
    {
      grant_type: 'authorization_code',
      code,
      redirect_uri: WEB_REDIRECT_URI,
      code_verifier: CODE_VERIFIER,
      ...(await authentication()),
    },
    proof ? { dpop: proof } : {},
  );

const tokenUrl = () => `${h.issuer(BANK)}/token`;

describe('a fapi2 realm', () => {
  it('says so in discovery: PAR, code, private_key_jwt and its three algorithms only', async () => {
    const metadata = (await h.get(endpointPath('.well-known/openid-configuration', BANK))).json();
    expect(metadata).toMatchObject({
      require_pushed_authorization_requests: true,
      response_types_supported: ['code'],
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['ES256', 'PS256', 'EdDSA'],
      revocation_endpoint_auth_methods_supported: ['private_key_jwt'],
      introspection_endpoint_auth_methods_supported: ['private_key_jwt'],
      dpop_signing_alg_values_supported: ['ES256', 'PS256', 'EdDSA'],
      id_token_signing_alg_values_supported: ['ES256'],
    });
    expect(metadata.grant_types_supported).not.toContain('implicit');
    const jwks = (await h.get(endpointPath('jwks', BANK))).json() as {
      keys: Array<{ alg: string }>;
    };
    expect(jwks.keys.map((key) => key.alg)).toEqual(['ES256']);
  });

  it('refuses a request that was not pushed, with the error redirected', async () => {
    const response = await b.authorize({ client_id: 'bank-app', scope: 'openid accounts' });
    const location = new URL(String(response.headers.location));
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('iss')).toBe(h.issuer(BANK));
  });

  it('refuses a token request without a DPoP proof, and binds the token to the proof', async () => {
    const code = await codeFor();
    expectOAuthError(await redeem(code), 400, 'invalid_dpop_proof');
    const key = await dpopKey(h.clock.now);
    const bound = await redeem(code, await key.proof({ htu: tokenUrl() }));
    expect(bound.status).toBe(200);
    expect(bound.json().token_type).toBe('DPoP');
  });

  it.each([
    ['the token endpoint', () => tokenUrl()],
    ['the PAR endpoint', () => `${h.issuer(BANK)}/par`],
    ['an array holding the issuer', () => [h.issuer(BANK), tokenUrl()]],
  ])('takes an assertion addressed to the issuer alone, not to %s', async (_, aud) => {
    const response = await h.post(PAR, { ...REQUEST, ...(await authentication({ aud: aud() })) });
    expectOAuthError(response, 400, 'invalid_client');
  });

  it('does not rotate refresh tokens: the same one refreshes again, and none is issued', async () => {
    const key = await dpopKey(h.clock.now);
    const first = await redeem(await codeFor(), await key.proof({ htu: tokenUrl() }));
    const refreshToken = first.json().refresh_token as string;
    const refresh = async () =>
      h.post(
        TOKEN,
        { grant_type: 'refresh_token', refresh_token: refreshToken, ...(await authentication()) },
        { dpop: await key.proof({ htu: tokenUrl() }) },
      );
    for (const answer of [await refresh(), await refresh()]) {
      expect(answer.status).toBe(200);
      expect(answer.json().refresh_token).toBeUndefined();
      expect(answer.json().token_type).toBe('DPoP');
    }
  });
});

describe('dynamic registration in a fapi2 realm', () => {
  it('registers private_key_jwt clients only, never with RS256 ID tokens', async () => {
    const registration = { open: true, token_endpoint_auth_methods: ['private_key_jwt' as const] };
    h = await createHarness({ otherRealms: [{ ...bankRealm(), registration }] });
    const register = (metadata: Record<string, unknown>) =>
      h.send({
        method: 'POST',
        path: endpointPath('register', BANK),
        query: '',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(metadata),
      });
    const client = {
      redirect_uris: [WEB_REDIRECT_URI],
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [keys.publicJwk] },
    };
    expect((await register(client)).status).toBe(201);
    const rs256 = await register({ ...client, id_token_signed_response_alg: 'RS256' });
    expectOAuthError(rs256, 400, 'invalid_client_metadata');
    const open = await register({ ...client, token_endpoint_auth_method: 'none', jwks: undefined });
    expectOAuthError(open, 400, 'invalid_client_metadata');
  });
});

describe('a DPoP proof sent to the PAR endpoint (RFC 9449 §10.1)', () => {
  const parUrl = () => `${h.issuer(BANK)}/par`;

  it('binds the code to its key: redeemed with a proof by that key only, unspent otherwise', async () => {
    const key = await dpopKey(h.clock.now);
    const code = await codeFor({ dpop: await key.proof({ htu: parUrl() }) });
    const other = await dpopKey(h.clock.now);
    expectOAuthError(
      await redeem(code, await other.proof({ htu: tokenUrl() })),
      400,
      'invalid_grant',
    );
    const redeemed: TestResponse = await redeem(code, await key.proof({ htu: tokenUrl() }));
    expect(redeemed.status).toBe(200);
  });

  it('refuses a pushed request whose dpop_jkt names another key than the proof', async () => {
    const [key, other] = [await dpopKey(h.clock.now), await dpopKey(h.clock.now)];
    const response = await push(
      { dpop_jkt: other.jkt },
      { dpop: await key.proof({ htu: parUrl() }) },
    );
    expectOAuthError(response, 400, 'invalid_dpop_proof');
  });

  it('refuses a proof for another URL', async () => {
    const key = await dpopKey(h.clock.now);
    const response = await push({}, { dpop: await key.proof({ htu: tokenUrl() }) });
    expectOAuthError(response, 400, 'invalid_dpop_proof');
  });
});

describe('client assertions issued ahead of the clock (FAPI 2.0 SP §5.3.2.1-13)', () => {
  it('takes one 10 seconds ahead and refuses one over 60 seconds ahead, in every realm', async () => {
    const at = async (ahead: number) => {
      const assertion = await h.assertion(h.keys.privateKey, 'ES256', {
        iss: 'key-client',
        iat: h.nowSeconds() + ahead,
      });
      return h.post(endpointPath('token'), {
        grant_type: 'client_credentials',
        client_assertion_type: JWT_BEARER,
        client_assertion: assertion,
      });
    };
    expect((await at(10)).status).toBe(200);
    expectOAuthError(await at(61), 400, 'invalid_client');
  });
});
