import { describe, expect, it } from 'vitest';
import { outcomeOf } from '../../../test-support/check-state.js';
import { checkBindingMessage } from './binding-message.js';
import { checkCibaGrantType } from './ciba-grant-type.js';
import { checkCibaKnownUser } from './ciba-known-user.js';
import { checkCibaScope } from './ciba-scope.js';
import { rejectCibaUnsupported } from './ciba-unsupported.js';
import { checkRequestedExpiry } from './requested-expiry.js';

describe('the CIBA checks', () => {
  it.each([
    ['grant type, a client without it', checkCibaGrantType, {}, {}, 'unauthorized_client'],
    ['unsupported login_hint', rejectCibaUnsupported, { login_hint: 'ada' }, {}, 'invalid_request'],
    ['unsupported request', rejectCibaUnsupported, { request: 'x' }, {}, 'invalid_request'],
    ['a known user', checkCibaKnownUser, {}, { hintedSub: 'ada' }, undefined],
    ['an account gone', checkCibaKnownUser, {}, { hintedSub: 'gone' }, 'unknown_user_id'],
    ['scope without openid', checkCibaScope, { scope: 'profile' }, {}, 'invalid_scope'],
    ['scope with openid', checkCibaScope, { scope: 'openid' }, {}, undefined],
    ['a plain binding message', checkBindingMessage, { binding_message: 'A1 B2' }, {}, undefined],
    [
      'a blank binding message',
      checkBindingMessage,
      { binding_message: '  ' },
      {},
      'invalid_binding_message',
    ],
    [
      'a bidi override',
      checkBindingMessage,
      { binding_message: 'a\u202eb' },
      {},
      'invalid_binding_message',
    ],
    ['no requested_expiry', checkRequestedExpiry, {}, {}, undefined],
    ['requested_expiry 0', checkRequestedExpiry, { requested_expiry: '0' }, {}, 'invalid_request'],
  ] as const)('%s', async (_, check, params, found, error) => {
    expect((await outcomeOf(check, params, found)).error).toBe(error);
  });

  it('caps requested_expiry at the realm maximum', async () => {
    const outcome = await outcomeOf(checkRequestedExpiry, { requested_expiry: '99999' });
    expect(outcome.found.expiresIn).toBe(600);
  });
});
