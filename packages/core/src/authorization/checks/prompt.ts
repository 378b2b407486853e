import { redirected } from '../authorization-error.js';
import type { Prompt } from '../request.js';
import type { RequestState } from './check.js';

const PROMPTS = new Set<string>(['login', 'consent', 'none']);

/**
 * OIDC Core 1.0 §3.1.2.1: prompt is login, consent or none (select_account is not offered), and
 * none stands alone.
 */
export function checkPrompt({ params, found }: RequestState): void {
  const value = params.get('prompt');
  if (value === undefined) {
    found.prompt = [];
    return;
  }
  const prompts = [...new Set(value.split(' '))];
  if (!prompts.every((prompt) => PROMPTS.has(prompt))) {
    throw redirected('invalid_request', 'prompt must be login, consent, login consent or none');
  }
  if (prompts.includes('none') && prompts.length > 1) {
    throw redirected('invalid_request', 'prompt=none cannot be combined with other values');
  }
  found.prompt = prompts as Prompt[];
}
