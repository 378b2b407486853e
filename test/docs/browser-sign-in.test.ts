import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildServer, parseServerConfig, type Server } from '@gatehouse-oidc/server';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CODE_VERIFIER, S256_CHALLENGE } from '../integration/browser.js';
import { InjectBrowser } from '../server/pages-support.js';
import { signInThroughPages } from '../server/sign-in-support.js';
import { EXAMPLE_CONFIG, ROOT } from '../server/support.js';
import { freePort } from '../support/ports.js';

const DOC = join(ROOT, 'docs/browser-sign-in.md');

/** The first shell snippet under `heading`, as a reader would paste it. */
function documentedScript(heading: string): string {
  const at = readFileSync(DOC, 'utf8').indexOf(`${heading}\n`);
  const match = at === -1 ? null : /```sh\n([\s\S]*?)```/.exec(readFileSync(DOC, 'utf8').slice(at));
  if (!match?.[1]) throw new Error(`docs/browser-sign-in.md lost its snippet under ${heading}`);
  return match[1];
}

const WALKTHROUGH = '## The whole flow from a shell';
const FORM_POST = '### Form post (`response_mode=form_post`)';
const CORS = '## Single-page applications (CORS)';

/** The first JSON snippet under `heading`, parsed. */
function documentedJson(heading: string): Record<string, unknown> {
  const doc = readFileSync(DOC, 'utf8');
  const at = doc.indexOf(`${heading}\n`);
  const snippet = at === -1 ? undefined : /```json\n([\s\S]*?)```/.exec(doc.slice(at))?.[1];
  if (!snippet) throw new Error(`docs/browser-sign-in.md lost its JSON under ${heading}`);
  return JSON.parse(snippet);
}

const runBash = (script: string, issuer: string) =>
  promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], {
    env: { ...process.env, ISSUER: issuer },
  });

/**
 * The walkthrough in docs/browser-sign-in.md runs, unchanged, against the demo configuration:
 * curl through the login and consent pages to a code, then the token exchange.
 */
describe('docs/browser-sign-in.md', () => {
  let server: Server;
  let issuer: string;

  beforeAll(async () => {
    const port = await freePort();
    const demo = JSON.parse(readFileSync(EXAMPLE_CONFIG, 'utf8'));
    const config = parseServerConfig({ ...demo, base_url: `http://127.0.0.1:${port}`, port });
    server = buildServer(config, { report: () => {} });
    await server.app.listen({ port, host: '127.0.0.1' });
    issuer = `http://127.0.0.1:${port}/oauth/demo`;
  });

  afterAll(() => server.app.close());

  // One run: the form post snippet continues the walkthrough's browser, whose consent is remembered.
  it('signs alice in and exchanges the code, then answers silently by form post', async () => {
    const script = `${documentedScript(WALKTHROUGH)}\necho\n${documentedScript(FORM_POST)}`;
    const { stdout } = await runBash(script, issuer);
    const [callback = '', tokenResponse = ''] = stdout.trim().split('\n');
    const params = new URL(callback).searchParams;
    expect(params.get('state')).toBe('af0ifjsldkj');
    expect(params.get('iss')).toBe(issuer);
    const tokens = JSON.parse(tokenResponse);
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'openid profile email' });
    expect(decodeJwt(tokens.id_token)).toMatchObject({ sub: 'alice', nonce: 'n-0S6_WzA2Mj' });

    const page = stdout.slice(stdout.indexOf('<!doctype html>'));
    expect(page).toContain('<form method="post" action="http://127.0.0.1:8080/callback">');
    expect(page).toMatch(/<input type="hidden" name="code" value="[\w-]{43}">/);
    expect(page).toContain('<input type="hidden" name="state" value="xyz">');
    expect(page).toContain('<button type="submit">Continue</button>');
  }, 30_000);

  it('serves RS256 ID tokens to the client of the signing algorithm section', async () => {
    const demo = JSON.parse(readFileSync(EXAMPLE_CONFIG, 'utf8'));
    demo.realms[0].clients.push(documentedJson('### ID token signing algorithm'));
    const { app } = buildServer(parseServerConfig(demo), { report: () => {} });
    const metadata = await app.inject({ url: '/oauth/demo/.well-known/openid-configuration' });
    expect(metadata.json().id_token_signing_alg_values_supported).toEqual(['ES256', 'RS256']);
    const jwks = (await app.inject({ url: '/oauth/demo/jwks' })).json();
    expect(jwks.keys.map((key: { alg: string }) => key.alg)).toEqual(['ES256', 'RS256']);
    await app.close();
  });

  it('answers the preflight of the CORS section as it shows', async () => {
    const { stdout } = await runBash(documentedScript(CORS), issuer);
    const shown = documentedScript(CORS)
      .split('\n')
      .filter((line) => line.startsWith('# '))
      .map((line) => line.slice(2));
    const [statusLine = '', ...headers] = shown;
    const lines = stdout.split('\r\n').map((line) => line.toLowerCase());
    expect(lines[0]).toBe(statusLine.toLowerCase());
    for (const header of headers) expect(lines).toContain(header.toLowerCase());
  });

  it('gives the claims_in_id_token client of the claims section the profile in its ID token', async () => {
    const client = documentedJson('### Claims by name, `acr` and `claims_in_id_token`');
    const demo = JSON.parse(readFileSync(EXAMPLE_CONFIG, 'utf8'));
    demo.realms[0].clients.push(client);
    const { app } = buildServer(parseServerConfig(demo), { report: () => {} });
    const base = 'http://127.0.0.1:3000';
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: String(client.client_id),
      redirect_uri: 'http://127.0.0.1:8080/callback',
      scope: 'openid profile email',
      code_challenge: S256_CHALLENGE,
      code_challenge_method: 'S256',
    });
    const callback = await signInThroughPages(
      new InjectBrowser(app, base),
      `${base}/oauth/demo/authorize?${query}`,
      { username: 'alice', password: 'alice-demo-password' },
    );
    const token = await app.inject({
      method: 'POST',
      url: '/oauth/demo/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`,
      },
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code') ?? '',
        redirect_uri: 'http://127.0.0.1:8080/callback',
        code_verifier: CODE_VERIFIER,
      }).toString(),
    });
    expect(decodeJwt(token.json().id_token)).toMatchObject({
      sub: 'alice',
      name: 'Alice Liddell',
      email: 'alice@example.com',
    });
    await app.close();
  });
});
