import { describe, expect, it } from 'vitest';
import { isAllowedHost, metadataDocumentUrl } from './client-id-url.js';

describe('metadataDocumentUrl', () => {
  it.each([
    'https://agent.example.com/client.json',
    'https://agent.example.com:8443/oauth/client',
    'https://agent.example.com/client?v=2',
  ])('takes %s', (clientId) => {
    expect(metadataDocumentUrl(clientId)?.href).toBe(clientId);
  });

  it.each([
    ['an ordinary client_id', 'web-app'],
    ['http', 'http://agent.example.com/client.json'],
    ['no path', 'https://agent.example.com'],
    ['only /', 'https://agent.example.com/'],
    ['a fragment', 'https://agent.example.com/client.json#x'],
    ['an empty fragment', 'https://agent.example.com/client.json#'],
    ['credentials', 'https://user:pw@agent.example.com/client.json'],
    ['a dot segment', 'https://agent.example.com/a/../client.json'],
    ['an upper-case host', 'https://Agent.example.com/client.json'],
    ['the default port', 'https://agent.example.com:443/client.json'],
    ['too long', `https://agent.example.com/${'a'.repeat(1024)}`],
  ])('does not take %s', (_, clientId) => {
    expect(metadataDocumentUrl(clientId)).toBeUndefined();
  });
});

describe('isAllowedHost', () => {
  const allowed = ['agent.example.com', '*.tools.example'];
  it.each([
    ['agent.example.com', undefined, true],
    ['agent.example.com', allowed, true],
    ['a.tools.example', allowed, true],
    ['a.b.tools.example', allowed, true],
    ['tools.example', allowed, false],
    ['eviltools.example', allowed, false],
    ['other.example.com', allowed, false],
  ])('%s with %j: %s', (hostname, hosts, expected) => {
    expect(isAllowedHost(hostname, hosts)).toBe(expected);
  });
});
