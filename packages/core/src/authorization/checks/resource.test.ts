import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { API_RESOURCE } from '../../../test-support/fixtures.js';
import { checkResource } from './resource.js';

describe('checkResource', () => {
  it.each([
    [['openid'], {}, { found: {} }],
    [['openid', 'api:read'], { resource: API_RESOURCE }, { found: { resource: API_RESOURCE } }],
    [['openid'], { resource: API_RESOURCE }, { error: 'invalid_request' }],
    [
      ['openid', 'api:read'],
      { resource: 'https://unknown.example.com' },
      { error: 'invalid_request' },
    ],
  ])('%j %j → %j', async (scopes, params, expected) => {
    expect(await outcomeOf(checkResource, params, { scopes })).toMatchObject(expected);
  });
});
