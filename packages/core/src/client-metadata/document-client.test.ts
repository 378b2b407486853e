import { describe, expect, it } from 'vitest';
import { clientConfigOfDocument, MetadataDocumentError } from './document-client.js';

const URL_ID = 'https://agent.example.com/oauth/client.json';
const REALM_SCOPES = ['openid', 'profile', 'mcp:tools'];
const KEY = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
};

const valid = {
  client_id: URL_ID,
  client_name: 'Agent',
  redirect_uris: ['http://127.0.0.1/callback', 'https://agent.example.com/cb'],
  grant_types: ['authorization_code', 'refresh_token'],
};

const read = (document: unknown) =>
  clientConfigOfDocument(
    typeof document === 'string' ? document : JSON.stringify(document),
    URL_ID,
    REALM_SCOPES,
  );

describe('clientConfigOfDocument', () => {
  it('makes a public client that needs PKCE and consent, with the realm scopes it names', () => {
    const config = read({ ...valid, scope: 'openid mcp:tools admin' });
    expect(config).toMatchObject({
      client_id: URL_ID,
      client_name: 'Agent',
      token_endpoint_auth_method: 'none',
      redirect_uris: valid.redirect_uris,
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      scope: 'openid mcp:tools',
      require_pkce: true,
      skip_consent: false,
    });
  });

  it("gives a document that names no scope the realm's", () => {
    expect(read(valid).scope).toBe('openid profile mcp:tools');
  });

  it('ignores members it does not know or does not take from a document', () => {
    const config = read({
      ...valid,
      logo_uri: 'https://agent.example.com/logo.png',
      software_id: 'agent',
      skip_consent: true,
      require_pkce: false,
      backchannel_logout_uri: 'https://agent.example.com/logout',
      post_logout_redirect_uris: ['https://agent.example.com/bye'],
    });
    expect(config).toMatchObject({ skip_consent: false, require_pkce: true });
    expect(config).not.toHaveProperty('backchannel_logout_uri');
    expect(config.post_logout_redirect_uris).toEqual([]);
  });

  it('takes private_key_jwt with its keys', () => {
    const config = read({
      ...valid,
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [KEY] },
    });
    expect(config).toMatchObject({
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [KEY] },
    });
    const remote = read({
      ...valid,
      token_endpoint_auth_method: 'private_key_jwt',
      jwks_uri: 'https://agent.example.com/jwks',
    });
    expect(remote.jwks_uri).toBe('https://agent.example.com/jwks');
  });

  it.each([
    ['not JSON', '{"client_id":', 'is not JSON'],
    ['an array', [valid], 'is not a JSON object'],
    ['null', 'null', 'is not a JSON object'],
    ['a mismatched client_id', { ...valid, client_id: `${URL_ID}?x` }, 'names another client_id'],
    ['no client_id', { ...valid, client_id: undefined }, 'names another client_id'],
    ['no redirect_uris', { ...valid, redirect_uris: undefined }, 'redirect_uris'],
    ['empty redirect_uris', { ...valid, redirect_uris: [] }, 'redirect_uris'],
    ['a client_secret', { ...valid, client_secret: 'x'.repeat(40) }, 'holds client_secret'],
    [
      'client_secret_expires_at',
      { ...valid, client_secret_expires_at: 0 },
      'holds client_secret_expires_at',
    ],
    [
      'client_secret_basic',
      { ...valid, token_endpoint_auth_method: 'client_secret_basic' },
      'shared secret',
    ],
    [
      'client_secret_post',
      { ...valid, token_endpoint_auth_method: 'client_secret_post' },
      'shared secret',
    ],
    [
      'client_secret_jwt',
      { ...valid, token_endpoint_auth_method: 'client_secret_jwt' },
      'shared secret',
    ],
    [
      'another method',
      { ...valid, token_endpoint_auth_method: 'tls_client_auth' },
      'must be none or private_key_jwt',
    ],
    [
      'private_key_jwt without keys',
      { ...valid, token_endpoint_auth_method: 'private_key_jwt' },
      'jwks',
    ],
    [
      'an http jwks_uri',
      {
        ...valid,
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: 'http://localhost/jwks',
      },
      'jwks_uri: must be https',
    ],
    [
      'a symmetric key',
      {
        ...valid,
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] },
      },
      'jwks',
    ],
    ['client_credentials', { ...valid, grant_types: ['client_credentials'] }, 'grant_types[0]'],
    [
      'an implicit response type',
      { ...valid, response_types: ['code', 'id_token'] },
      'response_types[1]: must be code',
    ],
    [
      'a plain http redirect elsewhere',
      { ...valid, redirect_uris: ['http://agent.example.com/cb'] },
      'redirect_uris[0]',
    ],
    [
      'a private-use scheme redirect',
      { ...valid, redirect_uris: ['com.agent:/cb'] },
      'redirect_uris[0]',
    ],
    [
      'a redirect with a fragment',
      { ...valid, redirect_uris: ['https://agent.example.com/cb#x'] },
      'fragment',
    ],
    ['scopes the realm lacks', { ...valid, scope: 'admin' }, "none of this realm's scopes"],
    [
      'a name with a bidirectional override',
      { ...valid, client_name: 'Agent\u202Egnp.exe' },
      'client_name',
    ],
    ['a name too long', { ...valid, client_name: 'A'.repeat(201) }, 'client_name'],
  ])('refuses a document with %s', (_, document, reason) => {
    expect(() => read(document)).toThrow(MetadataDocumentError);
    expect(() => read(document)).toThrow(reason);
  });
});
