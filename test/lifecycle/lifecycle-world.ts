import { MemoryStore } from '@gatehouse-oidc/core';
import { type FakeClock, fakeClock } from '@gatehouse-oidc/core/testing';
import { buildServer, hashPassword, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { CODE_VERIFIER, S256_CHALLENGE } from '../integration/browser.js';
import { InjectBrowser, type Injector } from '../server/pages-support.js';
import { signInThroughPages } from '../server/sign-in-support.js';
import { ADMIN_TOKEN, validConfig } from '../server/support.js';
import { basicAuthorization, FORM_HEADERS, form, SECRETS } from '../support/fixtures.js';
import type { StoreUnderTest } from '../support/store-backends.js';

/**
 * Two standalone servers (A and B) on one store, behind one issuer, serving a realm written
 * through the admin API (so that its clients, users and the realm itself can be removed): the
 * world the token-lifecycle model ends tokens in and judges them.
 */

export const BASE_URL = 'http://127.0.0.1:3000';
export const REALM = 'life';
const WEB_REDIRECT_URI = 'https://app.example.com/cb';
const SPA_REDIRECT_URI = 'https://spa.example.com/cb';
const ALICE_PASSWORD = 'alice-password';
const ALICE_PASSWORD_HASH = await hashPassword(ALICE_PASSWORD, { N: 2 ** 14 });

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** What web exchanges alice's token for: a resource of the api client that declares no scope. */
const REPORTS_RESOURCE = 'https://reports.example.com';

/** The realm object of the admin API: web (code + refresh + token exchange), spa (public), service, api. */
export function lifeRealm(): Record<string, unknown> {
  return {
    name: REALM,
    scopes: ['openid', 'profile', 'api:read'],
    resources: [
      { uri: 'https://api.example.com', client_id: 'api', scopes: ['api:read'] },
      { uri: REPORTS_RESOURCE, client_id: 'api' },
    ],
    clients: [
      {
        client_id: 'web',
        client_secret: SECRETS.basic,
        redirect_uris: [WEB_REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token', TOKEN_EXCHANGE],
        scope: 'openid profile',
        token_exchange: { resources: [REPORTS_RESOURCE] },
      },
      {
        client_id: 'spa',
        token_endpoint_auth_method: 'none',
        redirect_uris: [SPA_REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        scope: 'openid profile',
      },
      {
        client_id: 'service',
        client_secret: SECRETS.post,
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['client_credentials'],
        scope: 'api:read',
      },
      { client_id: 'api', client_secret: SECRETS.api, grant_types: [], scope: 'openid' },
    ],
    users: [
      { sub: 'alice', username: 'alice', password_hash: ALICE_PASSWORD_HASH, claims: {} },
      { sub: 'bob', username: 'bob', password_hash: ALICE_PASSWORD_HASH, claims: {} },
    ],
  };
}

/** What one sign-in of alice to web left her and web with, and a service token beside it. */
export interface Issued {
  browser: SwitchingBrowser;
  code: string;
  accessToken: string;
  refreshToken: string;
  idToken: string;
  serviceToken: string;
  /** The access token web exchanged alice's for (RFC 8693): of her grant, for the reports API. */
  exchangedToken: string;
}

/** Where a token is judged, and whether it still works there. */
export interface Verdict {
  /** The access token is active at introspection. */
  introspection: boolean;
  /** The access token is accepted at userinfo. */
  userinfo: boolean;
  /** The admin API lists web's grant to alice. */
  adminApi: boolean;
  /** The session gets web a new code silently, and the token endpoint redeems it. */
  tokenEndpoint: boolean;
  /** The refresh token is accepted at the token endpoint (judged last: it rotates). */
  refresh: boolean;
  /** The service's client_credentials token is active at introspection. */
  serviceToken: boolean;
  /** The token exchanged from the access token is active at introspection. */
  exchanged: boolean;
}

export const ALL_WORKING: Verdict = {
  introspection: true,
  userinfo: true,
  adminApi: true,
  tokenEndpoint: true,
  refresh: true,
  serviceToken: true,
  exchanged: true,
};

/** A browser whose requests go to whichever server `at` names. */
export class SwitchingBrowser extends InjectBrowser {
  #server: Server;
  constructor(first: Server) {
    const injector: Injector = { inject: (options) => this.#server.app.inject(options) };
    super(injector, BASE_URL);
    this.#server = first;
  }
  at(server: Server): this {
    this.#server = server;
    return this;
  }
}

export class LifecycleWorld {
  private constructor(
    readonly a: Server,
    readonly b: Server,
    readonly clock: FakeClock,
  ) {}

  /** A and B on the backend (memory when undefined), the realm written through A. */
  static async start(backend: StoreUnderTest | undefined): Promise<LifecycleWorld> {
    const clock = fakeClock(Date.now());
    const config = parseServerConfig({
      ...validConfig(),
      base_url: BASE_URL,
      cookie_secret: 'lifecycle-world-cookie-secret-0123456789',
      ...(backend ? backend.settings() : {}),
    });
    await backend?.migrate();
    const shared = backend ? undefined : new MemoryStore({ now: clock.now });
    const options = {
      now: clock.now,
      schemaReady: true,
      eventLog: () => {},
      ...(shared ? { store: shared } : {}),
    };
    const world = new LifecycleWorld(
      buildServer(config, options),
      buildServer(config, options),
      clock,
    );
    await world.writeRealm(lifeRealm());
    return world;
  }

  async close(): Promise<void> {
    await this.a.app.close();
    // On memory both servers hold one store, closed with the first.
    await this.b.app.close().catch(() => {});
  }

  admin(
    at: Server,
    method: 'GET' | 'PUT' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<LightMyRequestResponse> {
    const request: InjectOptions = {
      method,
      url: `/admin/realms/${REALM}${path}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    };
    if (body !== undefined) {
      request.headers = { ...request.headers, 'content-type': 'application/json' };
      request.payload = JSON.stringify(body);
    }
    return at.app.inject(request);
  }

  async writeRealm(realm: Record<string, unknown>, at: Server = this.a): Promise<void> {
    const written = await this.admin(at, 'PUT', '', realm);
    expect([200, 201], written.body).toContain(written.statusCode);
  }

  post(at: Server, endpoint: string, body: string, headers: Record<string, string> = {}) {
    return at.app.inject({
      method: 'POST',
      url: `/oauth/${REALM}/${endpoint}`,
      headers: { ...FORM_HEADERS, ...headers },
      payload: body,
    });
  }

  /** web's token request with `fields`, authenticated with its secret. */
  asWeb(at: Server, fields: Record<string, string>, secret: string = SECRETS.basic) {
    return this.post(at, 'token', form(fields), {
      authorization: basicAuthorization('web', secret),
    });
  }

  exchange(at: Server, code: string, clientId = 'web') {
    const fields = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: clientId === 'web' ? WEB_REDIRECT_URI : SPA_REDIRECT_URI,
      code_verifier: CODE_VERIFIER,
    };
    if (clientId === 'web') return this.asWeb(at, fields);
    return this.post(at, 'token', form({ ...fields, client_id: clientId }));
  }

  refresh(at: Server, refreshToken: string) {
    return this.asWeb(at, { grant_type: 'refresh_token', refresh_token: refreshToken });
  }

  serviceToken(at: Server, secret: string = SECRETS.post) {
    return this.post(
      at,
      'token',
      form({
        grant_type: 'client_credentials',
        client_id: 'service',
        client_secret: secret,
        resource: 'https://api.example.com',
      }),
    );
  }

  /** Alice signs in to web at A; web redeems the code at B; the service gets a token at A. */
  async issue(): Promise<Issued> {
    const browser = new SwitchingBrowser(this.a);
    const callback = await signInThroughPages(browser, authorizeUrl(), {
      username: 'alice',
      password: ALICE_PASSWORD,
    });
    const code = callback.searchParams.get('code') ?? '';
    const tokens = await this.exchange(this.b, code);
    expect(tokens.statusCode, tokens.body).toBe(200);
    const service = await this.serviceToken(this.a);
    expect(service.statusCode, service.body).toBe(200);
    const body = tokens.json();
    const exchanged = await this.asWeb(this.a, {
      grant_type: TOKEN_EXCHANGE,
      subject_token: body.access_token,
      subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      resource: REPORTS_RESOURCE,
    });
    expect(exchanged.statusCode, exchanged.body).toBe(200);
    return {
      exchangedToken: exchanged.json().access_token,
      browser,
      code,
      accessToken: body.access_token,
      refreshToken: body.refresh_token,
      idToken: body.id_token,
      serviceToken: service.json().access_token,
    };
  }

  /** A new code for web from the browser's session, without a login page; undefined if none. */
  async silentCode(browser: SwitchingBrowser, at: Server): Promise<string | undefined> {
    const answer = await browser.at(at).get(authorizeUrl({ prompt: 'none' }));
    const location = answer.headers.location;
    if (typeof location !== 'string' || !location.startsWith(`${WEB_REDIRECT_URI}?`))
      return undefined;
    return new URL(location).searchParams.get('code') ?? undefined;
  }

  /** Judges every token of `issued` at `at`, the refresh token last. */
  async judge(issued: Issued, at: Server): Promise<Verdict> {
    const introspection = await this.active(at, issued.accessToken, 'web');
    const userinfo = await at.app.inject({
      url: `/oauth/${REALM}/userinfo`,
      headers: { authorization: `Bearer ${issued.accessToken}` },
    });
    const grants = await this.admin(at, 'GET', '/users/alice/grants');
    const listed =
      grants.statusCode === 200 &&
      (grants.json().grants as { client_id: string }[]).some((grant) => grant.client_id === 'web');
    const code = await this.silentCode(issued.browser, at);
    const redeemed = code !== undefined && (await this.exchange(at, code)).statusCode === 200;
    const serviceToken = await this.active(at, issued.serviceToken, 'api');
    const exchanged = await this.active(at, issued.exchangedToken, 'api');
    const refreshed = await this.refresh(at, issued.refreshToken);
    return {
      introspection,
      userinfo: userinfo.statusCode === 200,
      adminApi: listed,
      tokenEndpoint: redeemed,
      refresh: refreshed.statusCode === 200,
      serviceToken,
      exchanged,
    };
  }

  /** Whether the token is active when its audience (web, or the API) introspects it. */
  async active(at: Server, token: string, audience: 'web' | 'api'): Promise<boolean> {
    const secret = audience === 'web' ? SECRETS.basic : SECRETS.api;
    const answer = await this.post(at, 'introspect', form({ token }), {
      authorization: basicAuthorization(audience, secret),
    });
    return answer.statusCode === 200 && answer.json().active === true;
  }
}

function authorizeUrl(extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'web',
    redirect_uri: WEB_REDIRECT_URI,
    scope: 'openid profile',
    code_challenge: S256_CHALLENGE,
    code_challenge_method: 'S256',
    ...extra,
  });
  return `${BASE_URL}/oauth/${REALM}/authorize?${query}`;
}
