import { describe, expect, it } from 'vitest';
import { checkRealm, outcomeOf } from '../../../test-support/check-state.js';
import type { Check, RequestState } from './check.js';
import { requireFapi2Pkce } from './fapi2-pkce.js';
import { requireFapi2ResponseType } from './fapi2-response-type.js';
import { requirePushed } from './require-pushed.js';

/** `check` as it runs in a realm of `profile` (the test realm has none). */
const inRealm =
  (profile: 'fapi2' | undefined, check: Check, pushed = false) =>
  (state: RequestState) => {
    const realm = { ...state.context.realm, config: { ...state.context.realm.config, profile } };
    return check({ ...state, context: { ...state.context, realm }, pushed });
  };

describe('the fapi2 rows of the authorization checks', () => {
  it('requires a pushed request in a fapi2 realm only (FAPI 2.0 SP §5.3.2.2-2)', async () => {
    expect(checkRealm.config.require_pushed_authorization_requests).toBe(false);
    expect((await outcomeOf(inRealm(undefined, requirePushed), {})).error).toBeUndefined();
    expect((await outcomeOf(inRealm('fapi2', requirePushed), {})).error).toBe('invalid_request');
    expect((await outcomeOf(inRealm('fapi2', requirePushed, true), {})).error).toBeUndefined();
  });

  it.each([
    ['code', undefined, undefined],
    ['code id_token', undefined, undefined],
    ['code', 'fapi2', undefined],
    ['code id_token', 'fapi2', 'unsupported_response_type'],
    ['id_token token', 'fapi2', 'unsupported_response_type'],
  ] as const)(
    'answers response_type %s in a realm of profile %s with %s',
    async (type, profile, error) => {
      const outcome = await outcomeOf(
        inRealm(profile, requireFapi2ResponseType),
        {},
        {
          responseType: type,
        },
      );
      expect(outcome.error).toBe(error);
    },
  );

  it('requires the S256 challenge the pkce check found, whatever the client says of itself', async () => {
    const challenge = { codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM' };
    expect(
      (await outcomeOf(inRealm('fapi2', requireFapi2Pkce), {}, challenge)).error,
    ).toBeUndefined();
    expect(await outcomeOf(inRealm('fapi2', requireFapi2Pkce), {})).toMatchObject({
      error: 'invalid_request',
      description: 'code_challenge is required in this realm',
    });
    expect((await outcomeOf(inRealm(undefined, requireFapi2Pkce), {})).error).toBeUndefined();
  });
});
