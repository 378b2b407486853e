import { OAuthError } from '../../errors/oauth-error.js';
import type { RequestState } from './check.js';

const MAX_BINDING_MESSAGE = 128;
/**
 * Shown as is on the user's device: visible text only — no control, format (bidi overrides,
 * zero-width), line or paragraph separators, private-use or unassigned characters — and not
 * blank.
 */
const BINDING_MESSAGE = new RegExp(
  `^(?=.*\\S)[^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Co}\\p{Cn}]{1,${MAX_BINDING_MESSAGE}}$`,
  'u',
);

/** CIBA Core 1.0 §7.1 and §13: a binding_message short and plain enough to show on a device. */
export function checkBindingMessage({ params, found }: RequestState): void {
  const message = params.get('binding_message');
  if (message === undefined) return;
  if (!BINDING_MESSAGE.test(message)) {
    throw new OAuthError(
      'invalid_binding_message',
      `binding_message must be 1 to ${MAX_BINDING_MESSAGE} printable characters`,
    );
  }
  found.bindingMessage = message;
}
