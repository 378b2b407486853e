import { describe, expect, it } from 'vitest';
import { checkRealm, outcomeOf } from '../../../test-support/check-state.js';
import type { RequestState } from './check.js';
import { requirePushed } from './require-pushed.js';

/** requirePushed as a client that requires PAR (or not) sees it, pushed or not. */
const asClient = (requires: boolean, pushed: boolean) => (state: RequestState) => {
  const client = {
    ...state.client,
    config: { ...state.client.config, require_pushed_authorization_requests: requires },
  };
  return requirePushed({ ...state, client, pushed });
};

describe('requirePushed', () => {
  it.each([
    [false, false, undefined],
    [true, false, 'invalid_request'],
    [true, true, undefined],
  ])('client requires %s, pushed %s → %s', async (requires, pushed, error) => {
    expect(checkRealm.config.require_pushed_authorization_requests).toBe(false);
    expect((await outcomeOf(asClient(requires, pushed), {})).error).toBe(error);
  });
});
