import { beforeEach, describe, expect, it } from 'vitest';
import { browser, CODE_VERIFIER, isInteraction } from './browser.js';
import { createHarness, type Harness, JWT_BEARER, type TestResponse, TOKEN } from './harness.js';

/**
 * Clients that bring their own metadata (draft-ietf-oauth-client-id-metadata-document), driven
 * in-process: the documents come from a fetch the test answers, so the realm allows private
 * networks (the default transport cannot check addresses). The outbound rules themselves are
 * tested through the Node.js transport in client-metadata-outbound.test.ts.
 */

const AGENT = 'https://agent.example.com/oauth/client.json';
const OTHER_AGENT = 'https://agent.example.com/oauth/other.json';
const LOOPBACK = 'http://127.0.0.1/callback';
const AGENT_REDIRECT = 'http://127.0.0.1:53124/callback';

const agentDocument = (clientId = AGENT, extra: Record<string, unknown> = {}) => ({
  client_id: clientId,
  client_name: 'Agent <b>CLI</b>',
  redirect_uris: [LOOPBACK],
  grant_types: ['authorization_code', 'refresh_token'],
  scope: 'openid profile',
  ...extra,
});

let documents: Map<string, () => Response>;
let fetched: string[];
let h: Harness;
let b: ReturnType<typeof browser>;

async function start(options: Parameters<typeof createHarness>[0] = {}) {
  h = await createHarness({
    realm: { client_id_metadata_documents: { enabled: true, private_networks: true } },
    fetch: async (input) => {
      const url = String(input);
      fetched.push(url);
      const answer = documents.get(url);
      return answer ? answer() : new Response('not found', { status: 404 });
    },
    ...options,
  });
  b = browser(h);
}

const serve = (url: string, document: unknown, headers: Record<string, string> = {}) =>
  documents.set(url, () => Response.json(document, { headers }));

beforeEach(async () => {
  documents = new Map();
  fetched = [];
  serve(AGENT, agentDocument());
  serve(OTHER_AGENT, agentDocument(OTHER_AGENT));
  await start();
});

const agentAuthorize = (params: Record<string, string> = {}) =>
  b.authorize({ client_id: AGENT, redirect_uri: AGENT_REDIRECT, ...params });

/** The code the agent's listener receives after alice signs in and consents. */
async function agentCode(params: Record<string, string> = {}): Promise<string> {
  const answer = await b.signIn({ client_id: AGENT, redirect_uri: AGENT_REDIRECT, ...params });
  const location = new URL(answer.headers.location ?? '');
  expect(location.origin + location.pathname).toBe(AGENT_REDIRECT);
  return location.searchParams.get('code') ?? '';
}

/** The error page the provider shows itself: no redirect to a target nobody vouched for. */
function expectShownAtProvider(answer: TestResponse, code: string, description: string) {
  expect(answer.status).toBe(400);
  expect(answer.headers.location).toBeUndefined();
  expect(answer.body).toContain(`<code id="error">${code}</code>`);
  expect(answer.body).toContain(description);
}

describe('a realm that takes client ID metadata documents', () => {
  it('says so in its metadata; a realm without the option does not', async () => {
    const metadata = await h.get('/oauth/test/.well-known/openid-configuration');
    expect(metadata.json().client_id_metadata_document_supported).toBe(true);
    const plain = await createHarness();
    const without = await plain.get('/oauth/test/.well-known/openid-configuration');
    expect(without.json()).not.toHaveProperty('client_id_metadata_document_supported');
  });

  it('signs a public agent in from its loopback port, with PKCE, consent and refresh', async () => {
    const login = await agentAuthorize();
    expect(isInteraction(h, login)).toBe(true);
    const consent = await b.finish(login, { login: { sub: 'alice' } });
    expect(await b.details(consent)).toMatchObject({
      prompt: 'consent',
      client: {
        id: AGENT,
        name: 'Agent <b>CLI</b>',
        metadataDocument: { redirectHost: '127.0.0.1', loopback: true },
      },
      redirectUri: AGENT_REDIRECT,
      scopes: ['openid', 'profile'],
    });
    const answer = await b.finish(consent, { consent: { scopes: ['openid', 'profile'] } });
    const code = new URL(answer.headers.location ?? '').searchParams.get('code') ?? '';

    const tokens = await h.post(TOKEN, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: AGENT_REDIRECT,
      client_id: AGENT,
      code_verifier: CODE_VERIFIER,
    });
    expect(tokens.status).toBe(200);
    expect(tokens.json()).toMatchObject({ token_type: 'Bearer', scope: 'openid profile' });
    const userinfo = await h.get('/oauth/test/userinfo', {
      authorization: `Bearer ${tokens.json().access_token}`,
    });
    expect(userinfo.json()).toMatchObject({ sub: 'alice', name: 'Alice Liddell' });

    const refreshed = await h.post(TOKEN, {
      grant_type: 'refresh_token',
      refresh_token: String(tokens.json().refresh_token),
      client_id: AGENT,
    });
    expect(refreshed.status).toBe(200);
    // Authorization, resume and both token requests: one fetch, the document kept meanwhile.
    expect(fetched).toEqual([AGENT]);
  });

  it('asks again for consent only of another client_id, even on the same host', async () => {
    await agentCode();
    const again = await agentAuthorize();
    expect(again.headers.location).toMatch(/^http:\/\/127\.0\.0\.1:53124\/callback\?code=/);
    const other = await b.authorize({ client_id: OTHER_AGENT, redirect_uri: AGENT_REDIRECT });
    expect((await b.details(other))?.prompt).toBe('consent');
  });

  it('refuses the code without its PKCE verifier, and authorization without a challenge', async () => {
    const code = await agentCode();
    const noVerifier = await h.post(TOKEN, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: AGENT_REDIRECT,
      client_id: AGENT,
    });
    expect(noVerifier.json().error).toBe('invalid_grant');
    const noChallenge = await agentAuthorize({ code_challenge: '', code_challenge_method: '' });
    expect(noChallenge.status).toBe(302);
    expect(noChallenge.headers.location).toContain('error=');
  });

  it.each([
    ['no document', undefined, 'could not be fetched: answered HTTP 404'],
    ['a mismatched client_id', agentDocument(OTHER_AGENT), 'names another client_id'],
    ['a secret', agentDocument(AGENT, { client_secret: 'x'.repeat(32) }), 'holds client_secret'],
    ['no redirect URIs', agentDocument(AGENT, { redirect_uris: [] }), 'redirect_uris'],
  ])(
    'shows invalid_client at the provider for %s, keeping nothing',
    async (_, document, reason) => {
      documents.delete(AGENT);
      if (document) serve(AGENT, document);
      const answer = await agentAuthorize();
      expectShownAtProvider(answer, 'invalid_client', reason);
      await agentAuthorize();
      expect(fetched).toEqual([AGENT, AGENT]);
    },
  );

  it('shows a redirect_uri the document does not list at the provider', async () => {
    const answer = await agentAuthorize({ redirect_uri: 'https://evil.example/callback' });
    expectShownAtProvider(answer, 'invalid_redirect_uri', 'not registered');
  });

  it('answers invalid_client at the token endpoint when the document no longer makes a client', async () => {
    const code = await agentCode();
    h.clock.advance(301);
    documents.delete(AGENT);
    const answer = await h.post(TOKEN, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: AGENT_REDIRECT,
      client_id: AGENT,
      code_verifier: CODE_VERIFIER,
    });
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({
      error: 'invalid_client',
      error_description: "the client's metadata document could not be fetched: answered HTTP 404",
    });
  });

  it('authenticates a private_key_jwt agent with the keys at its jwks_uri', async () => {
    const jwksUri = 'https://agent.example.com/jwks.json';
    serve(jwksUri, { keys: [h.keys.publicJwk] });
    serve(
      AGENT,
      agentDocument(AGENT, { token_endpoint_auth_method: 'private_key_jwt', jwks_uri: jwksUri }),
    );
    const code = await agentCode();
    const tokens = await h.post(TOKEN, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: AGENT_REDIRECT,
      code_verifier: CODE_VERIFIER,
      client_assertion_type: JWT_BEARER,
      client_assertion: await h.assertion(h.keys.privateKey, 'ES256', { iss: AGENT }),
    });
    expect(tokens.status).toBe(200);
    expect(fetched).toEqual([AGENT, jwksUri]);
  });

  it("refuses hosts outside the realm's allowed_hosts and the host application's rule, before fetching", async () => {
    const asked: string[] = [];
    await start({
      realm: {
        client_id_metadata_documents: {
          enabled: true,
          private_networks: true,
          allowed_hosts: ['*.example.com'],
        },
      },
      allowClientIdMetadataDocument: (url, realm) => {
        asked.push(`${realm} ${url.pathname}`);
        return url.pathname !== '/oauth/other.json';
      },
    });
    const outsider = 'https://agent.example.org/client.json';
    expectShownAtProvider(
      await b.authorize({ client_id: outsider, redirect_uri: AGENT_REDIRECT }),
      'invalid_client',
      'not accepted here',
    );
    expectShownAtProvider(
      await b.authorize({ client_id: OTHER_AGENT, redirect_uri: AGENT_REDIRECT }),
      'invalid_client',
      'not accepted here',
    );
    expect(fetched).toEqual([]);
    expect(await agentCode()).not.toBe('');
    // The realm's own list is checked first: the host's rule never hears of agent.example.org.
    expect(new Set(asked)).toEqual(new Set(['test /oauth/other.json', 'test /oauth/client.json']));
  });

  it('looks the client up once per authorization request, its kept URL parsed once', async () => {
    const asked: URL[] = [];
    await start({
      allowClientIdMetadataDocument: (url) => {
        asked.push(url);
        return true;
      },
    });
    expect(isInteraction(h, await agentAuthorize())).toBe(true);
    expect(isInteraction(h, await agentAuthorize())).toBe(true);
    expect(asked.map(String)).toEqual([AGENT, AGENT]);
    // The second request's URL is the one kept with the document, not parsed again.
    expect(asked[1]).toBe(asked[0]);
    expect(fetched).toEqual([AGENT]);
  });

  it('treats a URL client_id as unknown in a realm without the option', async () => {
    await start({ realm: {} });
    const answer = await agentAuthorize();
    expectShownAtProvider(answer, 'invalid_client_id', 'not a client of this realm');
    expect(fetched).toEqual([]);
  });
});
