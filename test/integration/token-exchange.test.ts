import type { ClientInput, GatehouseEvent } from '@gatehouse-oidc/core';
import { decodeJwt } from 'jose';
import { beforeEach, describe, expect, it } from 'vitest';
import { API_RESOURCE, OTHER_RESOURCE, WEB_REDIRECT_URI } from '../support/fixtures.js';
import {
  createHarness,
  endpointPath,
  expectOAuthError,
  type Harness,
  REVOKE,
  TOKEN,
} from './harness.js';
import { CODE_VERIFIER, exchange, expectTokens, postAsApp, userGrants } from './user-grants.js';

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
const GATEWAY_SECRET = 'gateway-secret-0123456789abcdef';

/**
 * The API gateway of the test realm: the resource server of API_RESOURCE, which exchanges the
 * tokens it receives for tokens meant for OTHER_RESOURCE, and a client users sign in to.
 */
const GATEWAY = {
  client_id: 'gateway',
  client_secret: GATEWAY_SECRET,
  token_endpoint_auth_method: 'client_secret_post',
  redirect_uris: [WEB_REDIRECT_URI],
  grant_types: ['authorization_code', 'client_credentials', TOKEN_EXCHANGE],
  scope: 'openid api:read other:read',
  token_exchange: { resources: [OTHER_RESOURCE] },
} as const satisfies ClientInput;

let h: Harness;
let events: GatehouseEvent[];
let grants: Awaited<ReturnType<typeof userGrants>>;

beforeEach(async () => {
  events = [];
  h = await createHarness({
    extraClients: [GATEWAY],
    realm: {
      resources: [
        { uri: API_RESOURCE, client_id: 'gateway', scopes: ['api:read', 'api:write'] },
        { uri: OTHER_RESOURCE, client_id: 'other-api', scopes: ['other:read'] },
      ],
    },
    otherRealms: [
      {
        name: 'second',
        scopes: ['other:read'],
        clients: [
          {
            client_id: GATEWAY.client_id,
            client_secret: GATEWAY_SECRET,
            token_endpoint_auth_method: 'client_secret_post',
            grant_types: ['client_credentials'],
            scope: 'other:read',
          },
        ],
      },
    ],
    onEvent: (event) => {
      events.push(event);
    },
  });
  grants = await userGrants(h);
});

const asGateway = (fields: Record<string, string>, realm = 'test') =>
  h.post(endpointPath('token', realm), {
    ...fields,
    client_id: GATEWAY.client_id,
    client_secret: GATEWAY_SECRET,
  });

/** Alice's access token (and the rest of web-app's answer) for API_RESOURCE. */
async function alicesTokens(sub = 'alice') {
  const code = await grants.code({
    sub,
    scopes: ['openid', 'api:read', 'other:read'],
    resource: API_RESOURCE,
  });
  return expectTokens(await exchange(h, code, { resource: API_RESOURCE }));
}
const alicesToken = async (sub = 'alice') => (await alicesTokens(sub)).access_token as string;

const gatewaysOwnToken = async (realm = 'test') =>
  expectTokens(await asGateway({ grant_type: 'client_credentials', scope: 'other:read' }, realm))
    .access_token as string;

const exchangeFields = (subject: string, fields: Record<string, string> = {}) => ({
  grant_type: TOKEN_EXCHANGE,
  subject_token: subject,
  subject_token_type: ACCESS_TOKEN_TYPE,
  resource: OTHER_RESOURCE,
  ...fields,
});

const withActor = (actor: string) => ({ actor_token: actor, actor_token_type: ACCESS_TOKEN_TYPE });

const isActiveAtOther = async (token: string) =>
  (await h.introspect('other-api', token)).json().active === true;

describe('token exchange (RFC 8693)', () => {
  it('impersonation: a token for the resource, same subject, no act, no refresh token', async () => {
    const body = expectTokens(await asGateway(exchangeFields(await alicesToken())));
    expect(body).toEqual({
      access_token: expect.any(String),
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: 600,
      scope: 'other:read',
    });
    const claims = decodeJwt(body.access_token as string);
    expect(claims).toMatchObject({ sub: 'alice', aud: OTHER_RESOURCE, client_id: 'gateway' });
    expect(claims.act).toBeUndefined();
    const introspected = (await h.introspect('other-api', body.access_token as string)).json();
    expect(introspected).toMatchObject({ active: true, sub: 'alice', aud: OTHER_RESOURCE });
  });

  it('`audience` naming a resource works as `resource`', async () => {
    const fields = exchangeFields(await alicesToken(), { audience: OTHER_RESOURCE });
    const { resource: _, ...withAudience } = fields;
    const body = expectTokens(await asGateway(withAudience));
    expect(decodeJwt(body.access_token as string).aud).toBe(OTHER_RESOURCE);
  });

  it('delegation: the actor token’s subject becomes `act`', async () => {
    const fields = exchangeFields(await alicesToken(), withActor(await gatewaysOwnToken()));
    const body = expectTokens(await asGateway(fields));
    const claims = decodeJwt(body.access_token as string);
    expect(claims).toMatchObject({ sub: 'alice', act: { sub: 'gateway' } });
    const introspected = (await h.introspect('other-api', body.access_token as string)).json();
    expect(introspected.act).toEqual({ sub: 'gateway' });
    expect(events.at(-1)).toMatchObject({
      type: 'token_issued',
      grantType: TOKEN_EXCHANGE,
      clientId: 'gateway',
      sub: 'alice',
      actor: 'gateway',
      grantId: expect.any(String),
      tokens: ['access_token'],
    });
    expect(JSON.stringify(events)).not.toContain(body.access_token);
  });

  it('nested delegation: a delegated token exchanged again keeps the earlier actor inside', async () => {
    // Bob's token for the gateway's API, issued to web-app, acts for Alice first.
    const bobs = await alicesToken('bob');
    const first = expectTokens(
      await asGateway(exchangeFields(await alicesToken(), withActor(bobs))),
    );
    expect(decodeJwt(first.access_token as string).act).toEqual({
      sub: 'bob',
      client_id: 'web-app',
    });
    const second = expectTokens(
      await asGateway(
        exchangeFields(first.access_token as string, withActor(await gatewaysOwnToken())),
      ),
    );
    expect(decodeJwt(second.access_token as string).act).toEqual({
      sub: 'gateway',
      act: { sub: 'bob', client_id: 'web-app' },
    });
  });

  it('`scope` narrows the subject’s scopes', async () => {
    const subject = await alicesToken();
    // A resource without declared scopes would take them all; OTHER_RESOURCE takes other:read.
    const body = expectTokens(await asGateway(exchangeFields(subject, { scope: 'other:read' })));
    expect(body.scope).toBe('other:read');
  });

  it.each([
    ['a scope the subject token lacks', 'other:read api:write'],
    ['a scope of no resource the token is for', 'openid'],
  ])('%s → invalid_scope', async (_, scope) => {
    const response = await asGateway(exchangeFields(await alicesToken(), { scope }));
    expectOAuthError(response, 400, 'invalid_scope');
  });

  it.each([
    ['a resource outside the client’s token_exchange.resources', { resource: API_RESOURCE }],
    ['a resource of no realm', { resource: 'https://elsewhere.example.com' }],
    ['resource and audience naming different targets', { audience: API_RESOURCE }],
  ])('%s → invalid_target', async (_, fields) => {
    const response = await asGateway(exchangeFields(await alicesToken(), fields));
    expectOAuthError(response, 400, 'invalid_target');
  });

  it.each([
    ['no subject_token_type', { subject_token_type: '' }],
    ['a subject_token_type not supported', { subject_token_type: 'urn:x:saml2' }],
    [
      'a requested_token_type other than an access token',
      { requested_token_type: 'urn:ietf:params:oauth:token-type:refresh_token' },
    ],
    ['actor_token_type without actor_token', { actor_token_type: ACCESS_TOKEN_TYPE }],
    ['actor_token without its type', { actor_token: 'x' }],
    ['neither resource nor audience', { resource: '' }],
  ])('%s → invalid_request', async (_, fields) => {
    expectOAuthError(
      await asGateway(exchangeFields(await alicesToken(), fields)),
      400,
      'invalid_request',
    );
  });

  describe('subject and actor tokens that do not count → invalid_grant', () => {
    it('a revoked subject token', async () => {
      const subject = await alicesToken();
      await postAsApp(h, 'web-app', REVOKE, { token: subject });
      const response = await asGateway(exchangeFields(subject));
      expectOAuthError(response, 400, 'invalid_grant');
      expect(response.body).not.toContain(subject);
    });

    it('an expired subject token', async () => {
      const subject = await alicesToken();
      h.clock.advance(601);
      expectOAuthError(await asGateway(exchangeFields(subject)), 400, 'invalid_grant');
    });

    it('a token of another realm', async () => {
      const foreign = await gatewaysOwnToken('second');
      expectOAuthError(await asGateway(exchangeFields(foreign)), 400, 'invalid_grant');
    });

    it('a token neither issued to the client nor meant for its resource', async () => {
      const notHeld = await h.issueToken('post-client', { resource: OTHER_RESOURCE });
      expectOAuthError(await asGateway(exchangeFields(notHeld)), 400, 'invalid_grant');
    });

    it.each([
      ['garbage', async () => 'not-a-token'],
      [
        'revoked',
        async () => {
          const actor = await gatewaysOwnToken();
          await asGateway({ token: actor }).then(() =>
            h.post(REVOKE, { token: actor, client_id: 'gateway', client_secret: GATEWAY_SECRET }),
          );
          return actor;
        },
      ],
      ['of another realm', async () => gatewaysOwnToken('second')],
    ])('an actor token that is %s', async (_, actor) => {
      const response = await asGateway(
        exchangeFields(await alicesToken(), withActor(await actor())),
      );
      expectOAuthError(response, 400, 'invalid_grant');
    });
  });

  it('an ID token of the realm issued to the client stands for its user, within the client’s scopes', async () => {
    const code = await grants.code({ clientId: 'gateway', scopes: ['openid'] });
    const signedIn = expectTokens(
      await asGateway({
        grant_type: 'authorization_code',
        code,
        redirect_uri: WEB_REDIRECT_URI,
        code_verifier: CODE_VERIFIER,
      }),
    );
    h.clock.advance(3300);
    const body = expectTokens(
      await asGateway(
        exchangeFields(signedIn.id_token as string, { subject_token_type: ID_TOKEN_TYPE }),
      ),
    );
    expect(decodeJwt(body.access_token as string)).toMatchObject({
      sub: 'alice',
      scope: 'other:read',
    });
    // It does not outlive the ID token (an hour).
    expect(body.expires_in).toBe(300);
  });

  it('an ID token issued to another client → invalid_grant', async () => {
    const code = await grants.code({ scopes: ['openid'] });
    const idToken = expectTokens(await exchange(h, code)).id_token as string;
    const response = await asGateway(
      exchangeFields(idToken, { subject_token_type: ID_TOKEN_TYPE }),
    );
    expectOAuthError(response, 400, 'invalid_grant');
  });

  it('an access token presented as an ID token → invalid_grant', async () => {
    const response = await asGateway(
      exchangeFields(await alicesToken(), { subject_token_type: ID_TOKEN_TYPE }),
    );
    expectOAuthError(response, 400, 'invalid_grant');
  });

  it('a client without the grant type → unauthorized_client', async () => {
    const response = await postAsApp(h, 'web-app', TOKEN, exchangeFields(await alicesToken()));
    expectOAuthError(response, 400, 'unauthorized_client');
  });
});

describe('the exchanged token belongs to the subject token’s grant', () => {
  it('revoking the grant (its refresh token) ends the exchanged token', async () => {
    const tokens = await alicesTokens();
    const exchanged = expectTokens(await asGateway(exchangeFields(tokens.access_token as string)))
      .access_token as string;
    expect(await isActiveAtOther(exchanged)).toBe(true);
    await postAsApp(h, 'web-app', REVOKE, { token: tokens.refresh_token as string });
    expect(await isActiveAtOther(exchanged)).toBe(false);
  });

  it('a token exchanged from a client’s own token belongs to no grant and lives on its own', async () => {
    const ownToken = await gatewaysOwnToken();
    const body = expectTokens(await asGateway(exchangeFields(ownToken)));
    expect(events.at(-1)).not.toHaveProperty('grantId');
    expect(decodeJwt(body.access_token as string).sub).toBe('gateway');
  });
});

describe('configuration', () => {
  it.each([
    [
      'the grant without token_exchange',
      { token_exchange: undefined },
      'token_exchange: is required',
    ],
    [
      'a resource the realm lacks',
      { token_exchange: { resources: ['https://nowhere.example'] } },
      'names unknown resource',
    ],
    [
      'a public client',
      { token_endpoint_auth_method: 'none', client_secret: undefined },
      'needs a client that authenticates',
    ],
  ])('%s is refused at start', async (_, override, message) => {
    await expect(
      createHarness({ extraClients: [{ ...GATEWAY, ...override } as ClientInput] }),
    ).rejects.toThrow(message);
  });
});
