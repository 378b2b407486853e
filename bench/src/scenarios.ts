import type { ServerName } from './server-names.js';
import type { GrantType } from './token-request.js';

/**
 * The benchmarked token requests, one per grant, and the servers measured on each. The ceiling
 * answers client_credentials only: its fixed answer is a floor for that request, not for a code
 * exchange or a refresh, whose cost is mostly the tokens the ceiling would not issue.
 */
export const SCENARIOS: ReadonlyMap<GrantType, readonly ServerName[]> = new Map([
  ['client_credentials', ['ours', 'ceiling', 'oidc-provider']],
  ['authorization_code', ['ours', 'oidc-provider']],
  ['refresh_token', ['ours', 'oidc-provider']],
]);

export const SCENARIO_NAMES: readonly GrantType[] = [...SCENARIOS.keys()];

export const isScenarioName = (value: string): value is GrantType =>
  (SCENARIO_NAMES as readonly string[]).includes(value);
