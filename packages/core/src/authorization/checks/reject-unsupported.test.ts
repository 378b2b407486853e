import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { rejectUnsupported } from './reject-unsupported.js';

describe('rejectUnsupported', () => {
  it.each([
    [{ scope: 'openid' }, {}],
    [{ request: 'x' }, { error: 'request_not_supported' }],
    [{ request_uri: 'https://app.example.com/r' }, { error: 'request_uri_not_supported' }],
    [{ registration: '{}' }, { error: 'registration_not_supported' }],
  ])('%j → %j', async (params, expected) => {
    expect(await outcomeOf(rejectUnsupported, params)).toMatchObject(expected);
  });
});
