import { StoreUnavailableError } from '../errors/oauth-error.js';

/** What a compare-and-set step returns when someone else wrote the record since it was read. */
export const CHANGED = Symbol('the record changed meanwhile');

/**
 * Compare-and-set attempts before giving up: each failed one means a concurrent request changed
 * the record, so a handful always suffices unless the store misbehaves.
 */
const MAX_ATTEMPTS = 8;

/**
 * Runs a state transition of stored records (a CIBA or device request, a session: read, decide,
 * `replace` with the revision read; a code issued under a grant a replay may revoke meanwhile)
 * until it holds: `step` returns its outcome, or `CHANGED` to be run again on a fresh read.
 * `what` names the record in the 503 of a store that keeps changing it.
 */
export async function untilSettled<T>(
  step: () => Promise<T | typeof CHANGED>,
  what: string,
): Promise<T> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const outcome = await step();
    if (outcome !== CHANGED) return outcome as T;
  }
  throw new StoreUnavailableError(`${what} kept changing`);
}
