import { describe, expect, it } from 'vitest';
import { metadataPathOf, metadataUrlOf, protectedResourceMetadata } from './metadata.js';

describe('protected resource metadata (RFC 9728)', () => {
  it('is published under the well-known prefix, the path of the resource inserted after it', () => {
    const table = [
      ['https://api.example.com', '/.well-known/oauth-protected-resource'],
      ['https://api.example.com/', '/.well-known/oauth-protected-resource'],
      ['https://api.example.com/mcp', '/.well-known/oauth-protected-resource/mcp'],
      ['https://api.example.com/v1/mcp/', '/.well-known/oauth-protected-resource/v1/mcp/'],
    ];
    for (const [resource = '', path] of table)
      expect(metadataPathOf(resource), resource).toBe(path);
    expect(metadataUrlOf('https://api.example.com:8443/mcp')).toBe(
      'https://api.example.com:8443/.well-known/oauth-protected-resource/mcp',
    );
    expect(metadataUrlOf('http://127.0.0.1:3000')).toBe(
      'http://127.0.0.1:3000/.well-known/oauth-protected-resource',
    );
  });

  it('keeps the members given, leaves out absent ones, and is frozen', () => {
    const document = protectedResourceMetadata({
      resource: 'https://api.example.com/mcp',
      authorization_servers: ['https://id.example.com/oauth/main'],
      scopes_supported: ['mcp:tools'],
      bearer_methods_supported: ['header'],
      resource_name: 'Example MCP',
      dpop_signing_alg_values_supported: ['ES256'],
      resource_documentation: undefined,
    });
    expect(JSON.parse(JSON.stringify(document))).toEqual({
      resource: 'https://api.example.com/mcp',
      authorization_servers: ['https://id.example.com/oauth/main'],
      scopes_supported: ['mcp:tools'],
      bearer_methods_supported: ['header'],
      resource_name: 'Example MCP',
      dpop_signing_alg_values_supported: ['ES256'],
    });
    expect(Object.isFrozen(document)).toBe(true);
  });

  it('refuses a resource that is not an absolute https URL without fragment, and bad URL members', () => {
    const cases: [Parameters<typeof protectedResourceMetadata>[0], RegExp][] = [
      [{ resource: 'api.example.com' }, /resource must be an absolute URL/],
      [{ resource: 'https://api.example.com/#x' }, /no fragment/],
      [{ resource: 'http://api.example.com' }, /https URL/],
      [
        { resource: 'https://api.example.com', authorization_servers: ['/oauth'] },
        /authorization_servers must be an absolute URL/,
      ],
      [
        { resource: 'https://api.example.com', resource_policy_uri: 'policy' },
        /resource_policy_uri/,
      ],
    ];
    for (const [metadata, message] of cases) {
      expect(() => protectedResourceMetadata(metadata), metadata.resource).toThrow(message);
    }
  });
});
