import { buildServer, parseServerConfig } from '@gatehouse-oidc/server';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { CODE_VERIFIER, S256_CHALLENGE } from '../integration/browser.js';
import { csrfTokenOf, InjectBrowser } from './pages-support.js';
import { validConfig, withChanges } from './support.js';

/**
 * An agent that brings its own metadata signs in through the built-in pages of the standalone
 * server: the document comes from the server's injected fetch (its realm allows private
 * networks, since a bare fetch cannot check addresses), the consent page says where the answer
 * goes and that it is this computer, and the code is redeemed as a public client with PKCE.
 */

const BASE_URL = 'http://127.0.0.1:3000';
const AGENT = 'https://agent.example.com/oauth/client.json';
const REDIRECT_URI = 'http://127.0.0.1:48123/callback';

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

function server() {
  const fetched: string[] = [];
  const config = parseServerConfig(
    withChanges(validConfig(), {
      base_url: BASE_URL,
      'realms.0.client_id_metadata_documents': { enabled: true, private_networks: true },
    }),
  );
  const { app } = buildServer(config, {
    fetch: async (input) => {
      fetched.push(String(input));
      return String(input) === AGENT
        ? Response.json({
            client_id: AGENT,
            client_name: 'Agent <script>',
            redirect_uris: ['http://127.0.0.1/callback'],
            grant_types: ['authorization_code', 'refresh_token'],
          })
        : new Response(null, { status: 404 });
    },
  });
  apps.push(app);
  return { app, fetched, browser: new InjectBrowser(app, BASE_URL) };
}

function authorizeUrl(extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: AGENT,
    redirect_uri: REDIRECT_URI,
    scope: 'openid profile',
    code_challenge: S256_CHALLENGE,
    code_challenge_method: 'S256',
    ...extra,
  });
  return `${BASE_URL}/oauth/demo/authorize?${query}`;
}

/** Signs alice in through the login page; resolves with the consent page that follows. */
async function consentPageFor(
  browser: InjectBrowser,
  extra: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const login = await browser.follow(await browser.get(authorizeUrl(extra)));
  const fields = {
    username: 'alice',
    password: 'alice-password',
    csrf_token: csrfTokenOf(login.body),
  };
  return browser.follow(await browser.post(browser.lastUrl, fields));
}

describe('a client ID metadata document client on the standalone server', () => {
  it('is announced in the realm metadata', async () => {
    const { app } = server();
    const metadata = await app.inject({
      method: 'GET',
      url: '/oauth/demo/.well-known/openid-configuration',
    });
    expect(metadata.json().client_id_metadata_document_supported).toBe(true);
  });

  it('signs in through the pages, always asking consent, and redeems its code with PKCE', async () => {
    const { app, browser, fetched } = server();
    const consent = await consentPageFor(browser);
    expect(consent.statusCode).toBe(200);
    expect(consent.body).toContain('Agent &lt;script&gt; asks for access to your account');
    expect(consent.body).toContain('Your answer goes to 127.0.0.1.');
    expect(consent.body).toContain('This application runs on your own computer (localhost)');
    expect(consent.headers['content-security-policy']).toContain(
      "form-action 'self' http://127.0.0.1:48123;",
    );
    const allowed = await browser.follow(
      await browser.post(browser.lastUrl, {
        decision: 'allow',
        csrf_token: csrfTokenOf(consent.body),
      }),
    );
    const callback = new URL(String(allowed.headers.location));
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);

    const tokens = await app.inject({
      method: 'POST',
      url: '/oauth/demo/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        redirect_uri: REDIRECT_URI,
        client_id: AGENT,
        code_verifier: CODE_VERIFIER,
      }).toString(),
    });
    expect(tokens.statusCode).toBe(200);
    expect(tokens.json()).toMatchObject({
      token_type: 'Bearer',
      refresh_token: expect.any(String),
    });
    expect(fetched).toEqual([AGENT]);
  });

  it('says it in French', async () => {
    const { browser } = server();
    const consent = await consentPageFor(browser, { ui_locales: 'fr' });
    expect(consent.body).toContain('Votre réponse est envoyée à 127.0.0.1.');
    expect(consent.body).toContain(
      'Cette application tourne sur votre propre ordinateur (localhost)',
    );
  });

  it('shows invalid_client at the provider when the document cannot be had', async () => {
    const { browser } = server();
    const missing = 'https://agent.example.com/oauth/missing.json';
    const answer = await browser.get(authorizeUrl({ client_id: missing }));
    expect(answer.statusCode).toBe(400);
    expect(answer.headers.location).toBeUndefined();
    expect(answer.body).toContain('invalid_client');
    expect(answer.body).toContain('could not be fetched: answered HTTP 404');
  });
});
