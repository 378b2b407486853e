import type { Params } from '../../http/form.js';
import { redirected } from '../authorization-error.js';
import type { RequestState } from './check.js';

/**
 * Longest accepted values of what is stored with an interaction, echoed back or verified: without bounds an
 * anonymous request could park tens of kilobytes in the store per interaction.
 */
export const MAX_LENGTHS = new Map([
  ['state', 2048],
  ['nonce', 2048],
  ['login_hint', 512],
  ['ui_locales', 512],
  ['acr_values', 512],
  ['claims', 4096],
  ['id_token_hint', 8192],
]);

/** Whether the parameter `name` is longer than Gatehouse keeps. */
export const tooLong = (params: Params, name: string) =>
  (params.get(name)?.length ?? 0) > (MAX_LENGTHS.get(name) ?? Number.POSITIVE_INFINITY);

/** docs/interface.md §7.2: values longer than the bounds above are refused, not cut. */
export function checkParameterLengths({ params }: RequestState): void {
  for (const [name, max] of MAX_LENGTHS) {
    if (tooLong(params, name))
      throw redirected('invalid_request', `${name} is longer than ${max} characters`);
  }
}
