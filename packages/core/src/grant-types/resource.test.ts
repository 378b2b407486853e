import { describe, expect, it } from 'vitest';
import { API_RESOURCE, clientKeyPair, testRealm } from '../../test-support/fixtures.js';
import { oauthErrorOf } from '../../test-support/oauth-errors.js';
import { buildRealm } from '../realms/realm.js';
import { validateRealm } from '../realms/realm-source.js';
import { checkScopesCoverResource, requestedResource } from './resource.js';

const keys = await clientKeyPair();
const realm = buildRealm(validateRealm(testRealm(keys)), 'https://id.example.com');
const api = realm.resources.get(API_RESOURCE);
const unscoped = { uri: 'https://open.example.com', client_id: 'api', scopes: [] };

describe('requestedResource', () => {
  it('is undefined when no resource is asked for', () => {
    expect(requestedResource(undefined, realm)).toBeUndefined();
  });

  it('finds a declared resource by exact URI', () => {
    expect(requestedResource(API_RESOURCE, realm)).toBe(api);
  });

  it.each([
    `${API_RESOURCE}/`,
    'https://API.example.com',
    'https://unknown.example.com',
    '__proto__',
  ])('%s → invalid_target', (resource) => {
    expect(oauthErrorOf(() => requestedResource(resource, realm)).code).toBe('invalid_target');
  });
});

describe('checkScopesCoverResource', () => {
  it.each([
    [['api:read'], api],
    [['other:read', 'api:write'], api],
    [[], undefined],
    [[], unscoped],
  ])('%j for %o is enough', (scopes, resource) => {
    expect(() => checkScopesCoverResource(scopes, resource)).not.toThrow();
  });

  it.each([[['other:read']], [[]]])('%j for the API → invalid_scope', (scopes) => {
    expect(oauthErrorOf(() => checkScopesCoverResource(scopes, api)).code).toBe('invalid_scope');
  });
});
