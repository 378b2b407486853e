import { type Check, type Found, runChecks } from '../src/authorization/checks/check.js';
import type { RealmContext } from '../src/context.js';
import { OAuthError } from '../src/errors/oauth-error.js';
import { paramsFromPairs } from '../src/http/form.js';
import { buildRealm } from '../src/realms/realm.js';
import { validateRealm } from '../src/realms/realm-source.js';
import { clientKeyPair, testRealm } from './fixtures.js';

export const checkRealm = buildRealm(
  validateRealm(
    testRealm(await clientKeyPair(), {
      ciba: { expires_in: 120, max_expires_in: 600, interval: 5 },
    } as never),
  ),
  'https://id.example.com',
);

/** What a check did: the error code and description it threw, or what it found. */
export interface Outcome {
  error?: string;
  description?: string;
  found: Found;
}

/**
 * Runs `check` on `params` for the test realm's `clientId` (web-app by default), with what
 * earlier checks found, and tells what came of it.
 */
export async function outcomeOf(
  check: Check,
  params: Record<string, string | string[]>,
  found: Found = {},
  clientId = 'web-app',
): Promise<Outcome> {
  const client = checkRealm.clients.get(clientId);
  if (!client) throw new Error(`${clientId} is not in the test realm`);
  const pairs = Object.entries(params).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((each): [string, string] => [name, each]),
  );
  const context = {
    realm: checkRealm,
    now: () => Date.now(),
    accounts: {
      findAccount: async (_realm: string, sub: string) => (sub === 'gone' ? undefined : { sub }),
    },
  } as unknown as RealmContext;
  const state = {
    params: paramsFromPairs(pairs, { recordRepeats: true }),
    context,
    client,
    found: { ...found },
  };
  try {
    await runChecks([check], state);
    return { found: state.found };
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return {
      error: error.code,
      found: state.found,
      ...(error.description ? { description: error.description } : {}),
    };
  }
}
