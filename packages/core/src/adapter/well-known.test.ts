import { afterAll, describe, expect, it } from 'vitest';
import { createProvider, type Provider } from '../index.js';
import { WELL_KNOWN_ROOTS, wellKnownRequest } from './index.js';

const realms = [{ name: 'demo', clients: [] }];
const providers: Provider[] = [];
function provider(baseUrl: string): Provider {
  const made = createProvider({ baseUrl, realms });
  providers.push(made);
  return made;
}
afterAll(() => Promise.all(providers.map((each) => each.close())));

const get = (path: string) => ({ method: 'GET', path, query: '', headers: {} });

/** What the host's root answers at `path` for Gatehouse with this base URL. */
async function atHostRoot(baseUrl: string, path: string) {
  const gatehouse = provider(baseUrl);
  const response = await gatehouse.handle(wellKnownRequest(gatehouse, get(path)));
  return { status: response.status, body: JSON.parse(response.body ?? 'null') };
}

describe('wellKnownRequest', () => {
  it.each([
    ['https://id.example.com', '/.well-known/oauth-authorization-server/oauth/demo'],
    ['https://id.example.com', '/.well-known/openid-configuration/oauth/demo'],
    ['https://id.example.com/', '/.well-known/oauth-authorization-server/oauth/demo'],
    ['https://example.com/auth', '/.well-known/oauth-authorization-server/auth/oauth/demo'],
    ['https://example.com/a/b', '/.well-known/openid-configuration/a/b/oauth/demo'],
  ])('under %s, answers %s with the realm metadata', async (baseUrl, path) => {
    const { status, body } = await atHostRoot(baseUrl, path);
    expect(status).toBe(200);
    expect(body.issuer).toBe(`${baseUrl.replace(/\/$/, '')}/oauth/demo`);
  });

  it.each([
    [
      'https://id.example.com',
      '/.well-known/oauth-authorization-server/oauth/nope',
      'unknown realm',
    ],
    [
      'https://example.com/auth',
      '/.well-known/oauth-authorization-server/oauth/demo',
      'no such endpoint',
    ],
    [
      'https://example.com/auth',
      '/.well-known/openid-configuration/other/oauth/demo',
      'no such endpoint',
    ],
    ['https://id.example.com', '/.well-known/openid-configuration', 'no such endpoint'],
    ['https://id.example.com', '/.well-known/oauth-authorization-server', 'no such endpoint'],
    ['https://id.example.com', '/.well-known/openid-configuration/oauth/', 'no such endpoint'],
    ['https://id.example.com', '/.well-known/openid-configuration/oauth/demo/', 'no such endpoint'],
    [
      'https://id.example.com',
      '/.well-known/openid-configuration/oauth/demo/jwks',
      'no such endpoint',
    ],
  ])('under %s, answers %s with JSON 404 %s', async (baseUrl, path, description) => {
    expect(await atHostRoot(baseUrl, path)).toEqual({
      status: 404,
      body: { error: 'not_found', error_description: description },
    });
  });

  it('lists the two roots a binding routes to it', () => {
    expect(WELL_KNOWN_ROOTS).toEqual([
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]);
  });
});

describe('{issuer}/.well-known/oauth-authorization-server', () => {
  it('is the OpenID discovery document', async () => {
    const gatehouse = provider('https://id.example.com');
    const oauth = await gatehouse.handle(get('/oauth/demo/.well-known/oauth-authorization-server'));
    const openid = await gatehouse.handle(get('/oauth/demo/.well-known/openid-configuration'));
    expect(oauth).toEqual(openid);
    expect(JSON.parse(oauth.body ?? '')).toMatchObject({
      issuer: 'https://id.example.com/oauth/demo',
      authorization_response_iss_parameter_supported: true,
    });
  });
});
