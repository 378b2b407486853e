import type { ClientInput, RealmInput } from '@gatehouse-oidc/core';
import { decodeJwt, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { type DpopKey, dpopKey } from '../support/dpop.js';
import { SECRETS, WEB_REDIRECT_URI } from '../support/fixtures.js';
import {
  CODE_VERIFIER as BROWSER_VERIFIER,
  browser,
  clientParams,
  S256_CHALLENGE,
} from './browser.js';
import {
  BASE_URL,
  createHarness,
  endpointPath,
  expectOAuthError,
  type Harness,
  TOKEN,
} from './harness.js';
import { CODE_VERIFIER, expectTokens, type UserGrants, userGrants } from './user-grants.js';

const TOKEN_URL = `${BASE_URL}${TOKEN}`;
const USERINFO = endpointPath('userinfo');
const USERINFO_URL = `${BASE_URL}${USERINFO}`;
const CIBA = 'urn:openid:params:grant-type:ciba';
/** The authorization request web-app pushes. */
const PUSHED = {
  response_type: 'code',
  redirect_uri: WEB_REDIRECT_URI,
  scope: 'openid profile',
  state: 'state-123',
  code_challenge: S256_CHALLENGE,
  code_challenge_method: 'S256',
};
const PUBLIC_APP = {
  client_id: 'dpop-spa',
  token_endpoint_auth_method: 'none',
  redirect_uris: [WEB_REDIRECT_URI],
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'openid profile',
  skip_consent: true,
} as const satisfies ClientInput;
const BOUND_ONLY = {
  client_id: 'dpop-only',
  client_secret: 'dpop-only-secret-0123456789',
  token_endpoint_auth_method: 'client_secret_post',
  grant_types: ['client_credentials'],
  scope: 'api:read',
  dpop_bound_access_tokens: true,
} as const satisfies ClientInput;
const CIBA_APP = {
  client_id: 'ciba-app',
  client_secret: 'ciba-secret-0123456789abcdef',
  token_endpoint_auth_method: 'client_secret_post',
  redirect_uris: [WEB_REDIRECT_URI],
  response_types: ['code', 'id_token'],
  grant_types: ['authorization_code', CIBA],
  scope: 'openid profile',
} as const satisfies ClientInput;

async function harness(realm: Partial<RealmInput> = {}) {
  const h = await createHarness({
    extraClients: [PUBLIC_APP, BOUND_ONLY, CIBA_APP],
    realm: { ciba: { interval: 5, expires_in: 120, max_expires_in: 600 }, ...realm },
    authenticatorPush: { notify: async () => {} },
  });
  return { h, grants: await userGrants(h), key: await dpopKey(h.clock.now) };
}

let h: Harness;
let grants: UserGrants;
let key: DpopKey;
beforeAll(async () => {
  ({ h, grants, key } = await harness());
});

/** Form fields that authenticate the clients this file adds. */
const OWN_CLIENTS: Readonly<Record<string, Record<string, string>>> = {
  [PUBLIC_APP.client_id]: { client_id: PUBLIC_APP.client_id },
  [BOUND_ONLY.client_id]: {
    client_id: BOUND_ONLY.client_id,
    client_secret: BOUND_ONLY.client_secret,
  },
  [CIBA_APP.client_id]: { client_id: CIBA_APP.client_id, client_secret: CIBA_APP.client_secret },
};

/** A token request of `clientId` with a proof by `by` (none when null). */
async function tokenRequest(
  clientId: string,
  fields: Record<string, string>,
  by: DpopKey | null = key,
) {
  const proof: Record<string, string> = by ? { dpop: await by.proof({ htu: TOKEN_URL }) } : {};
  const own = OWN_CLIENTS[clientId];
  const credentials = own ? { fields: own, headers: {} } : await h.credentialsOf(clientId);
  return h.post(TOKEN, { ...fields, ...credentials.fields }, { ...credentials.headers, ...proof });
}

/** web-app's code from the browser redeems with a proof by `key`, after one by another key failed. */
async function expectCodeBoundToKey(code: string | undefined) {
  const fields = {
    grant_type: 'authorization_code',
    code: code ?? '',
    redirect_uri: WEB_REDIRECT_URI,
    code_verifier: BROWSER_VERIFIER,
  };
  const other = await dpopKey(h.clock.now);
  expectOAuthError(await tokenRequest('web-app', fields, other), 400, 'invalid_grant');
  expect(expectTokens(await tokenRequest('web-app', fields)).token_type).toBe('DPoP');
}

/** GET userinfo with `token` under `scheme`, with a proof by `by` for it. */
async function userinfo(token: string, scheme = 'DPoP', by: DpopKey | null = key, extra = {}) {
  const dpop: Record<string, string> = by
    ? { dpop: await by.proof({ htm: 'GET', htu: USERINFO_URL, accessToken: token, ...extra }) }
    : {};
  return h.get(USERINFO, { authorization: `${scheme} ${token}`, ...dpop });
}

describe('client_credentials with a proof', () => {
  it('answers token_type DPoP and a JWT bound to the key, which introspection shows', async () => {
    const body = expectTokens(
      await tokenRequest('post-client', { grant_type: 'client_credentials' }),
    );
    expect(body.token_type).toBe('DPoP');
    const token = body.access_token as string;
    expect(decodeJwt(token).cnf).toEqual({ jkt: key.jkt });
    const introspected = (await h.introspect('post-client', token)).json();
    expect(introspected).toMatchObject({ active: true, token_type: 'DPoP', cnf: { jkt: key.jkt } });
  });

  it('answers Bearer without a proof, as before', async () => {
    const body = expectTokens(
      await tokenRequest('post-client', { grant_type: 'client_credentials' }, null),
    );
    expect(body.token_type).toBe('Bearer');
    expect(decodeJwt(body.access_token as string).cnf).toBeUndefined();
  });

  it('binds an opaque token in its record', async () => {
    const opaque = await harness({ access_token_format: 'opaque' });
    const proof = await opaque.key.proof({ htu: TOKEN_URL });
    const response = await opaque.h.postAs('post-client', TOKEN, {
      grant_type: 'client_credentials',
    });
    expect(response.json().token_type).toBe('Bearer');
    const bound = await opaque.h.post(
      TOKEN,
      { grant_type: 'client_credentials', ...(await opaque.h.credentialsOf('post-client')).fields },
      { dpop: proof },
    );
    const token = expectTokens(bound).access_token as string;
    expect((await opaque.h.introspect('post-client', token)).json()).toMatchObject({
      token_type: 'DPoP',
      cnf: { jkt: opaque.key.jkt },
    });
  });

  it('refuses a bad proof with invalid_dpop_proof, whatever the grant', async () => {
    const response = await h.postAs('post-client', TOKEN, { grant_type: 'client_credentials' });
    expect(response.status).toBe(200);
    const wrongUrl = await key.proof({ htu: USERINFO_URL });
    const refused = await h.post(
      TOKEN,
      { grant_type: 'client_credentials', ...(await h.credentialsOf('post-client')).fields },
      { dpop: wrongUrl },
    );
    expectOAuthError(refused, 400, 'invalid_dpop_proof');
  });

  it('refuses a replayed proof', async () => {
    const proof = await key.proof({ htu: TOKEN_URL });
    const fields = {
      grant_type: 'client_credentials',
      ...(await h.credentialsOf('post-client')).fields,
    };
    expect((await h.post(TOKEN, fields, { dpop: proof })).status).toBe(200);
    expectOAuthError(await h.post(TOKEN, fields, { dpop: proof }), 400, 'invalid_dpop_proof');
  });
});

describe('dpop_bound_access_tokens', () => {
  it('requires a proof of the client at the token endpoint', async () => {
    const fields = { grant_type: 'client_credentials' };
    expectOAuthError(
      await tokenRequest(BOUND_ONLY.client_id, fields, null),
      400,
      'invalid_dpop_proof',
    );
    expect(expectTokens(await tokenRequest(BOUND_ONLY.client_id, fields)).token_type).toBe('DPoP');
  });
});

describe('authorization_code and refresh_token', () => {
  const codeOf = (clientId: string, details = {}) =>
    grants.code({ ...grants.grant({ clientId }), clientId, ...details });
  const exchange = (clientId: string, code: string, by: DpopKey | null = key) =>
    tokenRequest(
      clientId,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: WEB_REDIRECT_URI,
        code_verifier: CODE_VERIFIER,
      },
      by,
    );

  it('binds the access token and a public client’s refresh token to the key', async () => {
    const body = expectTokens(
      await exchange(PUBLIC_APP.client_id, await codeOf(PUBLIC_APP.client_id)),
    );
    expect(body.token_type).toBe('DPoP');
    expect(decodeJwt(body.access_token as string).cnf).toEqual({ jkt: key.jkt });
    const refreshToken = body.refresh_token as string;
    const refresh = { grant_type: 'refresh_token', refresh_token: refreshToken };

    const other = await dpopKey(h.clock.now);
    expectOAuthError(
      await tokenRequest(PUBLIC_APP.client_id, refresh, other),
      400,
      'invalid_grant',
    );
    expectOAuthError(await tokenRequest(PUBLIC_APP.client_id, refresh, null), 400, 'invalid_grant');

    const refreshed = expectTokens(await tokenRequest(PUBLIC_APP.client_id, refresh));
    expect(refreshed.token_type).toBe('DPoP');
    expect(decodeJwt(refreshed.access_token as string).cnf).toEqual({ jkt: key.jkt });
    const next = { grant_type: 'refresh_token', refresh_token: refreshed.refresh_token as string };
    expectOAuthError(await tokenRequest(PUBLIC_APP.client_id, next, other), 400, 'invalid_grant');
  });

  it('leaves a confidential client’s refresh token unbound, binding each access token to its proof', async () => {
    const body = expectTokens(await exchange('web-app', await codeOf('web-app')));
    const refresh = { grant_type: 'refresh_token', refresh_token: body.refresh_token as string };
    const other = await dpopKey(h.clock.now);
    const refreshed = expectTokens(await tokenRequest('web-app', refresh, other));
    expect(decodeJwt(refreshed.access_token as string).cnf).toEqual({ jkt: other.jkt });
  });

  it('redeems a code issued for dpop_jkt only with a proof by that key, without spending it otherwise', async () => {
    const code = await codeOf('web-app', { dpopJkt: key.jkt });
    const other = await dpopKey(h.clock.now);
    expectOAuthError(await exchange('web-app', code, other), 400, 'invalid_grant');
    expectOAuthError(await exchange('web-app', code, null), 400, 'invalid_grant');
    expect(expectTokens(await exchange('web-app', code)).token_type).toBe('DPoP');
  });

  it('takes dpop_jkt at the authorization endpoint and binds the code to it', async () => {
    const response = await browser(h).signIn({ dpop_jkt: key.jkt });
    await expectCodeBoundToKey(clientParams(response).params.code);
  });

  it('refuses a malformed dpop_jkt at the authorization endpoint', async () => {
    const response = await browser(h).authorize({ dpop_jkt: 'not-a-thumbprint' });
    expect(clientParams(response).params.error).toBe('invalid_request');
  });
});

describe('a proof with a pushed authorization request (RFC 9449 §10.1)', () => {
  const PAR = endpointPath('par');
  const PAR_URL = `${BASE_URL}${PAR}`;
  const WEB_APP = { client_id: 'web-app', client_secret: SECRETS.web };

  /** web-app pushes its request with a proof by `by`, then `fields` beside it. */
  async function push(by: DpopKey, fields: Record<string, string> = {}, htu = PAR_URL) {
    return h.post(PAR, { ...PUSHED, ...WEB_APP, ...fields }, { dpop: await by.proof({ htu }) });
  }

  it('binds the code to the proof key as dpop_jkt does', async () => {
    const pushed = await push(key);
    expect(pushed.status).toBe(201);
    const response = await browser(h).signIn({
      client_id: 'web-app',
      request_uri: pushed.json().request_uri as string,
    });
    await expectCodeBoundToKey(clientParams(response).params.code);
  });

  it('takes a dpop_jkt of the same key, and refuses one of another', async () => {
    expect((await push(key, { dpop_jkt: key.jkt })).status).toBe(201);
    const other = await dpopKey(h.clock.now);
    const refused = await push(key, { dpop_jkt: other.jkt });
    expectOAuthError(refused, 400, 'invalid_dpop_proof');
    expect(refused.json().error_description).toBe(
      'dpop_jkt is not the thumbprint of the key of the DPoP proof',
    );
  });

  it('refuses a proof for another endpoint, and a proof used before', async () => {
    expectOAuthError(await push(key, {}, TOKEN_URL), 400, 'invalid_dpop_proof');
    const proof = await key.proof({ htu: PAR_URL });
    const send = () => h.post(PAR, { ...PUSHED, ...WEB_APP }, { dpop: proof });
    expect((await send()).status).toBe(201);
    expectOAuthError(await send(), 400, 'invalid_dpop_proof');
  });
});

describe('CIBA with a proof', () => {
  it('binds the tokens of an approved request', async () => {
    const signedIn = await browser(h).signIn({
      client_id: CIBA_APP.client_id,
      response_type: 'id_token',
    });
    const started = await h.post(endpointPath('bc-authorize'), {
      client_id: CIBA_APP.client_id,
      client_secret: CIBA_APP.client_secret,
      scope: 'openid',
      id_token_hint: clientParams(signedIn).params.id_token ?? '',
    });
    const authReqId = started.json().auth_req_id as string;
    await h.provider.ciba.approve('test', authReqId);
    h.clock.advance(5);
    const body = expectTokens(
      await tokenRequest(CIBA_APP.client_id, { grant_type: CIBA, auth_req_id: authReqId }),
    );
    expect(body.token_type).toBe('DPoP');
    expect(decodeJwt(body.access_token as string).cnf).toEqual({ jkt: key.jkt });
  });
});

describe('userinfo', () => {
  async function boundToken(by = key): Promise<string> {
    const code = await grants.code({ clientId: 'web-app' });
    const response = await tokenRequest(
      'web-app',
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: WEB_REDIRECT_URI,
        code_verifier: CODE_VERIFIER,
      },
      by,
    );
    return expectTokens(response).access_token as string;
  }
  const challenge = (response: { headers: Record<string, string> }) =>
    response.headers['www-authenticate'] ?? '';

  it('answers a bound token with its proof', async () => {
    const response = await userinfo(await boundToken());
    expect(response.status, response.body).toBe(200);
    expect(response.json().sub).toBe('alice');
  });

  it('refuses a bound token presented as Bearer with invalid_token and a DPoP challenge', async () => {
    const response = await userinfo(await boundToken(), 'Bearer', null);
    expect(response.status).toBe(401);
    expect(response.json().error).toBe('invalid_token');
    expect(challenge(response)).toMatch(/^DPoP realm=".*", error="invalid_token", .*algs="ES256/);
  });

  it.each<[string, (token: string) => Promise<Awaited<ReturnType<typeof userinfo>>>]>([
    ['no proof', (token) => userinfo(token, 'DPoP', null)],
    ['no ath', (token) => userinfo(token, 'DPoP', key, { accessToken: undefined })],
    [
      'the ath of another token',
      (token) => userinfo(token, 'DPoP', key, { accessToken: 'another-token' }),
    ],
    [
      'a proof by another key',
      async (token) => userinfo(token, 'DPoP', await dpopKey(h.clock.now)),
    ],
    ['a proof for POST', (token) => userinfo(token, 'DPoP', key, { htm: 'POST' })],
  ])('refuses %s with 401 invalid_dpop_proof and a DPoP challenge', async (_, send) => {
    const response = await send(await boundToken());
    expect(response.status).toBe(401);
    expect(response.json().error).toBe('invalid_dpop_proof');
    expect(challenge(response)).toMatch(/^DPoP realm=".*", error="invalid_dpop_proof", /);
  });

  it('refuses an unbound token presented as DPoP', async () => {
    const token = await h.issueToken('post-client');
    const response = await userinfo(token);
    expect(response.status).toBe(401);
    expect(response.json().error).toBe('invalid_token');
  });
});

describe('server nonces (require_nonce)', () => {
  let n: Awaited<ReturnType<typeof harness>>;
  beforeAll(async () => {
    n = await harness({
      dpop: { require_nonce: true },
      request_object_signing_alg_values_supported: ['HS256'],
    });
  });

  it('asks the token endpoint’s proof for a nonce, then accepts it; every answer has a fresh one', async () => {
    const fields = {
      grant_type: 'client_credentials',
      ...(await n.h.credentialsOf('post-client')).fields,
    };
    const asked = await n.h.post(TOKEN, fields, { dpop: await n.key.proof({ htu: TOKEN_URL }) });
    expectOAuthError(asked, 400, 'use_dpop_nonce');
    const nonce = asked.headers['dpop-nonce'] ?? '';
    expect(nonce).not.toBe('');
    const answered = await n.h.post(TOKEN, fields, {
      dpop: await n.key.proof({ htu: TOKEN_URL, nonce }),
    });
    const body = expectTokens(answered);
    expect(answered.headers['dpop-nonce']).toBe(nonce);
    // A request without a proof needs no nonce, and still hears the current one.
    const bearer = await n.h.post(TOKEN, fields);
    expect(bearer.status).toBe(200);
    expect(bearer.headers['dpop-nonce']).toBe(nonce);

    const token = body.access_token as string;
    const proof = (extra = {}) =>
      n.key.proof({ htm: 'GET', htu: USERINFO_URL, accessToken: token, ...extra });
    const userinfoAsked = await n.h.get(USERINFO, {
      authorization: `DPoP ${token}`,
      dpop: await proof(),
    });
    expect(userinfoAsked.status).toBe(401);
    expect(userinfoAsked.headers['www-authenticate']).toMatch(
      /^DPoP realm=".*", error="use_dpop_nonce"/,
    );
    expect(userinfoAsked.headers['dpop-nonce']).toBe(nonce);
    // client_credentials has no openid scope: the binding passes and userinfo refuses the scope.
    const withNonce = await n.h.get(USERINFO, {
      authorization: `DPoP ${token}`,
      dpop: await proof({ nonce }),
    });
    expect(withNonce.status).toBe(403);
    expect(withNonce.headers['dpop-nonce']).toBe(nonce);
  });

  it('asks a pushed request’s proof for a nonce too, and takes the same request object with it', async () => {
    const par = endpointPath('par');
    // Signed, with a jti: asking for a nonce must not spend it.
    const request = await new SignJWT({ ...PUSHED, client_id: 'web-app', jti: 'once' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('web-app')
      .setAudience(n.h.issuer())
      .setIssuedAt(n.h.nowSeconds())
      .setExpirationTime(n.h.nowSeconds() + 60)
      .sign(new TextEncoder().encode(SECRETS.web));
    const fields = { request, client_id: 'web-app', client_secret: SECRETS.web };
    const htu = `${BASE_URL}${par}`;
    const asked = await n.h.post(par, fields, { dpop: await n.key.proof({ htu }) });
    expectOAuthError(asked, 400, 'use_dpop_nonce');
    const nonce = asked.headers['dpop-nonce'] ?? '';
    const pushed = await n.h.post(par, fields, { dpop: await n.key.proof({ htu, nonce }) });
    expect(pushed.status).toBe(201);
    expect(pushed.headers['dpop-nonce']).toBe(nonce);
  });

  it('accepts the previous nonce after a rotation and refuses an older one', async () => {
    const fields = {
      grant_type: 'client_credentials',
      ...(await n.h.credentialsOf('post-client')).fields,
    };
    const nonce = (await n.h.post(TOKEN, fields)).headers['dpop-nonce'];
    n.h.clock.advance(120);
    const later = await n.h.post(TOKEN, fields, {
      dpop: await n.key.proof({ htu: TOKEN_URL, nonce }),
    });
    expect(later.status).toBe(200);
    expect(later.headers['dpop-nonce']).not.toBe(nonce);
    n.h.clock.advance(120);
    const stale = await n.h.post(TOKEN, fields, {
      dpop: await n.key.proof({ htu: TOKEN_URL, nonce }),
    });
    expectOAuthError(stale, 400, 'use_dpop_nonce');
  });
});

describe('what the host hears', () => {
  it('events carry neither the proof nor the token', async () => {
    const events: unknown[] = [];
    const observed = await createHarness({
      onEvent: (event) => {
        events.push(event);
      },
    });
    const proof = await key.proof({ htu: TOKEN_URL });
    const fields = {
      grant_type: 'client_credentials',
      ...(await observed.credentialsOf('post-client')).fields,
    };
    const body = expectTokens(await observed.post(TOKEN, fields, { dpop: proof }));
    const replayed = await observed.post(TOKEN, fields, { dpop: proof });
    expect(replayed.status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(events).toContainEqual(expect.objectContaining({ type: 'token_issued' }));
    const heard = JSON.stringify(events);
    for (const secret of [proof, ...proof.split('.'), body.access_token as string]) {
      expect(heard).not.toContain(secret);
    }
  });
});

describe('no-store retention', () => {
  it('binds the JWT alone, and userinfo still wants its proof', async () => {
    const noStore = await harness({ access_token_retention_policy: 'no-store' });
    const code = await noStore.grants.code({ clientId: 'web-app' });
    const fields = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: WEB_REDIRECT_URI,
      code_verifier: CODE_VERIFIER,
      ...(await noStore.h.credentialsOf('web-app')).fields,
    };
    const proof = await noStore.key.proof({ htu: TOKEN_URL });
    const token = expectTokens(await noStore.h.post(TOKEN, fields, { dpop: proof }))
      .access_token as string;
    const asBearer = await noStore.h.get(USERINFO, { authorization: `Bearer ${token}` });
    expect(asBearer.status).toBe(401);
    const dpop = await noStore.key.proof({ htm: 'GET', htu: USERINFO_URL, accessToken: token });
    const withProof = await noStore.h.get(USERINFO, { authorization: `DPoP ${token}`, dpop });
    expect(withProof.status, withProof.body).toBe(200);
  });
});

describe('discovery', () => {
  it('lists dpop_signing_alg_values_supported', async () => {
    const metadata = (await h.get(endpointPath('.well-known/openid-configuration'))).json();
    expect(metadata.dpop_signing_alg_values_supported).toEqual([
      'ES256',
      'PS256',
      'EdDSA',
      'RS256',
      'ES384',
      'PS384',
    ]);
  });
});
