import { beforeAll, describe, expect, it } from 'vitest';
import { type Client, createProvider } from '../index.js';
import { isRegisteredRedirectUri } from './redirect-uri-match.js';

const REGISTERED = [
  'http://127.0.0.1/cb',
  'http://[::1]:8400/cb?app=cli',
  'http://localhost/',
  'https://127.0.0.1/secure',
  'com.example.app:/cb',
  'https://app.example.com/cb',
];

let native: Client;
let web: Client;
beforeAll(async () => {
  const provider = createProvider({
    baseUrl: 'https://id.example.com',
    realms: [
      {
        name: 'r',
        clients: [
          {
            client_id: 'native',
            application_type: 'native',
            token_endpoint_auth_method: 'none',
            redirect_uris: REGISTERED,
          },
          {
            client_id: 'web',
            client_secret: 'web-secret-0123456789',
            redirect_uris: ['http://127.0.0.1:3000/cb', 'https://app.example.com/cb'],
          },
        ],
      },
    ],
  });
  const realm = await provider.realm('r');
  const client = (id: string) => {
    const found = realm?.clients.get(id);
    if (!found) throw new Error(`no client ${id}`);
    return found;
  };
  native = client('native');
  web = client('web');
  await provider.close();
});

describe('isRegisteredRedirectUri for a native client', () => {
  it.each([
    ['the registered URI itself', 'http://127.0.0.1/cb'],
    ['127.0.0.1 with an ephemeral port', 'http://127.0.0.1:51234/cb'],
    ['127.0.0.1 with the highest port', 'http://127.0.0.1:65535/cb'],
    ['[::1] with another port than registered', 'http://[::1]:51234/cb?app=cli'],
    ['[::1] without the registered port', 'http://[::1]/cb?app=cli'],
    ['localhost with a port', 'http://localhost:8080/'],
    ['a private-use scheme, exactly', 'com.example.app:/cb'],
    ['https, exactly', 'https://app.example.com/cb'],
    ['https loopback, exactly', 'https://127.0.0.1/secure'],
  ])('accepts %s', (_, uri) => {
    expect(isRegisteredRedirectUri(native, uri)).toBe(true);
  });

  it.each([
    ['another path', 'http://127.0.0.1:51234/other'],
    ['a longer path', 'http://127.0.0.1:51234/cb/more'],
    ['a trailing slash', 'http://127.0.0.1:51234/cb/'],
    ['another query', 'http://[::1]:51234/cb?app=evil'],
    ['the query dropped', 'http://[::1]:51234/cb'],
    ['a query added', 'http://127.0.0.1:51234/cb?x=1'],
    ['a fragment added', 'http://127.0.0.1:51234/cb#x'],
    ['another loopback host than registered', 'http://localhost:51234/cb'],
    ['another loopback address', 'http://127.0.0.2:51234/cb'],
    ['another host', 'http://evil.example:51234/cb'],
    ['userinfo before the host', 'http://127.0.0.1@evil.example/cb'],
    ['userinfo after a port-like text', 'http://127.0.0.1:80@evil.example/cb'],
    ['a host that only starts like loopback', 'http://127.0.0.1.evil.example/cb'],
    ['a backslash after the host', 'http://127.0.0.1:8080\\@evil.example/cb'],
    ['https for a registered http loopback URI', 'https://127.0.0.1:51234/cb'],
    ['another port for a registered https loopback URI', 'https://127.0.0.1:8443/secure'],
    ['an upper-case scheme', 'HTTP://127.0.0.1:51234/cb'],
    ['an upper-case host', 'http://LOCALHOST:8080/'],
    ['an empty port', 'http://127.0.0.1:/cb'],
    ['port 0', 'http://127.0.0.1:0/cb'],
    ['a port out of range', 'http://127.0.0.1:65536/cb'],
    ['a port with a leading zero', 'http://127.0.0.1:08080/cb'],
    ['an encoded host', 'http://127.0.0.%31:51234/cb'],
  ])('refuses %s', (_, uri) => {
    expect(isRegisteredRedirectUri(native, uri)).toBe(false);
  });
});

describe('isRegisteredRedirectUri for a web client', () => {
  it('accepts its registered URIs exactly', () => {
    expect(isRegisteredRedirectUri(web, 'http://127.0.0.1:3000/cb')).toBe(true);
    expect(isRegisteredRedirectUri(web, 'https://app.example.com/cb')).toBe(true);
  });

  it.each(['http://127.0.0.1:3001/cb', 'http://127.0.0.1/cb', 'https://app.example.com:8443/cb'])(
    'never gives it port freedom: refuses %s',
    (uri) => {
      expect(isRegisteredRedirectUri(web, uri)).toBe(false);
    },
  );
});
