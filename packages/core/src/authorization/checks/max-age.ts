import { redirected } from '../authorization-error.js';
import type { RequestState } from './check.js';

const MAX_AGE = /^\d{1,9}$/;

/** OIDC Core 1.0 §3.1.2.1: max_age is a number of seconds (0 means "sign in now"). */
export function checkMaxAge({ params, found }: RequestState): void {
  const value = params.get('max_age');
  if (value === undefined) return;
  if (!MAX_AGE.test(value))
    throw redirected('invalid_request', 'max_age must be a number of seconds');
  found.maxAge = Number(value);
}
