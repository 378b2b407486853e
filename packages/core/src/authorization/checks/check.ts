import type { RealmContext } from '../../context.js';
import type { RedirectedCode } from '../../errors/codes.js';
import { OAuthError } from '../../errors/oauth-error.js';
import type { Params } from '../../http/form.js';
import type { Client } from '../../realms/realm.js';
import { redirected } from '../authorization-error.js';
import type { AuthorizationRequest } from '../request.js';

/** What the checks of a request have found so far: the request they build, field by field. */
export type Found = { -readonly [K in keyof AuthorizationRequest]?: AuthorizationRequest[K] } & {
  /** CIBA: the text shown on the user's device. */
  bindingMessage?: string;
  /** CIBA: seconds the request may wait for the user. */
  expiresIn?: number;
  /** CIBA ping: the bearer token the client's notification endpoint expects. */
  clientNotificationToken?: string;
};

/** One request as the checks see it: its parameters, its client, and what earlier checks found. */
export interface RequestState {
  readonly params: Params;
  readonly context: RealmContext;
  readonly client: Client;
  readonly found: Found;
  /** The request was pushed first (RFC 9126) and taken from the store by its request_uri. */
  readonly pushed?: boolean;
}

/**
 * One rule, in one file: it throws the OAuth error the rule names, or records what it read in
 * `found`. Errors are `redirected` (docs/interface.md §7.2) when the client may hear them; the
 * PAR and CIBA endpoints answer the same errors as JSON.
 */
export type Check<State = RequestState> = (state: State) => void | Promise<void>;

/** Runs `checks` in order; the first that fails ends the request. */
export async function runChecks<State>(
  checks: readonly Check<State>[],
  state: State,
): Promise<void> {
  for (const check of checks) await check(state);
}

/** A field an earlier check of the table found; its absence is a table in the wrong order. */
export function need<K extends keyof Found>(found: Found, name: K): NonNullable<Found[K]> {
  const value = found[name];
  if (value === undefined || value === null) {
    throw new Error(`authorization checks out of order: ${String(name)} is not known yet`);
  }
  return value as NonNullable<Found[K]>;
}

/** Runs a rule shared with the token endpoint, sending its error to the client as `code`. */
export function redirectedOnError<T>(check: () => T, code: RedirectedCode): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    throw redirected(code, error.description ?? error.code);
  }
}

/** The words of a space-separated parameter, or undefined when it has none. */
export function spaceSeparated(value: string | undefined): string[] | undefined {
  const parts = value?.split(' ').filter((part) => part !== '');
  return parts && parts.length > 0 ? parts : undefined;
}
