import { redirected } from '../authorization-error.js';
import type { ResumeState } from './resume-state.js';

/**
 * OIDC Core 1.0 §3.1.2.6: when the host's page ends the interaction with an error (the user
 * denied, or could not sign in), the client hears it; the host's description is passed on.
 */
export function checkUserDecision({ interaction }: ResumeState): void {
  const { result } = interaction;
  if ('error' in result) {
    throw redirected(result.error, result.error_description ?? 'the user denied the request');
  }
}
