import { requestedDpopJkt } from '../../dpop/jkt-parameter.js';
import type { RequestState } from './check.js';

/**
 * RFC 9449 §10: `dpop_jkt` binds the code to the key whose thumbprint it names, so only a token
 * request with a proof by that key redeems it.
 */
export function checkDpopJkt({ params, found }: RequestState): void {
  const jkt = requestedDpopJkt(params);
  if (jkt !== undefined) found.dpopJkt = jkt;
}
