import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { WEB_REDIRECT_URI } from '../../../test-support/fixtures.js';
import { checkPushedRedirectUri } from './pushed-redirect-uri.js';
import { rejectRequestUri } from './pushed-request-uri.js';

describe('the PAR checks', () => {
  it.each([
    ['a request_uri pushed', rejectRequestUri, { request_uri: 'urn:x' }, 'invalid_request'],
    ['no request_uri', rejectRequestUri, {}, undefined],
    [
      'a registered redirect_uri',
      checkPushedRedirectUri,
      { redirect_uri: WEB_REDIRECT_URI },
      undefined,
    ],
    [
      'another redirect_uri',
      checkPushedRedirectUri,
      { redirect_uri: `${WEB_REDIRECT_URI}/x` },
      'invalid_request',
    ],
    ['no redirect_uri', checkPushedRedirectUri, {}, 'invalid_request'],
  ] as const)('%s', async (_, check, params, error) => {
    expect((await outcomeOf(check, params)).error).toBe(error);
  });
});
