import { requestedClaims } from '../claims-request.js';
import { need, type RequestState } from './check.js';

/**
 * OIDC Core 1.0 §5.5: the `claims` parameter, read with the scopes and acr_values found before it
 * (claims-request.ts holds the rules: known claims only, essential acr, a requested `sub`).
 */
export function checkClaims({ params, client, found }: RequestState): void {
  Object.assign(
    found,
    requestedClaims(params.get('claims'), client, need(found, 'scopes'), found.acrValues),
  );
}
