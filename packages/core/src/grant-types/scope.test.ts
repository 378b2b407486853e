import { describe, expect, it } from 'vitest';
import { clientKeyPair, testRealm } from '../../test-support/fixtures.js';
import { oauthErrorOf } from '../../test-support/oauth-errors.js';
import { buildRealm } from '../realms/realm.js';
import { validateRealm } from '../realms/realm-source.js';
import { requestedScopes } from './scope.js';

const realm = buildRealm(validateRealm(testRealm(await clientKeyPair())), 'https://id.example.com');
const client = realm.clients.get('post-client');
if (!client) throw new Error('post-client missing from the test realm');
const FALLBACK = ['api:read'];

describe('requestedScopes', () => {
  it.each([
    [undefined, ['api:read']],
    ['api:write', ['api:write']],
    ['other:read api:read', ['other:read', 'api:read']],
    ['api:read api:read api:write', ['api:read', 'api:write']],
  ])('%s → %j', (scope, expected) => {
    expect(requestedScopes(scope, client, FALLBACK)).toEqual(expected);
  });

  it('returns a copy of the fallback, never the fallback itself', () => {
    expect(requestedScopes(undefined, client, FALLBACK)).not.toBe(FALLBACK);
  });

  it.each([
    ['unassigned', 'email'],
    ['one of several unassigned', 'api:read openid'],
    ['unknown', 'nope'],
    ['a leading space', ' api:read'],
    ['a double space', 'api:read  api:write'],
    ['a tab separator', 'api:read\tapi:write'],
    ['a quote', 'api:"read'],
    ['a backslash', 'api:\\read'],
    ['a non-ASCII character', 'api:réad'],
  ])('%s (%j) → invalid_scope', (_, scope) => {
    expect(oauthErrorOf(() => requestedScopes(scope, client, FALLBACK)).code).toBe('invalid_scope');
  });
});
