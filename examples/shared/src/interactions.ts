import {
  type InteractionDetails,
  InteractionError,
  type InteractionPrompt,
  type InteractionResult,
  type Provider,
} from '@gatehouse-oidc/core';
import { REALM } from './demo.js';

/**
 * The interaction `id` if it still waits for this prompt; undefined once finished or expired, or
 * when `cookieHeader` (the request's) is not that of the browser that started it.
 */
export async function pendingInteraction(
  provider: Provider,
  id: unknown,
  prompt: InteractionPrompt,
  cookieHeader: string | undefined,
): Promise<InteractionDetails | undefined> {
  const details =
    typeof id === 'string'
      ? await provider.interactions.details(REALM, id, cookieHeader)
      : undefined;
  return details?.prompt === prompt ? details : undefined;
}

/**
 * Hands the result to Gatehouse: the URL to send the browser to with a 303 (so the form is not
 * re-sent), or undefined when the interaction was finished meanwhile, in another tab.
 */
export async function finishInteraction(
  provider: Provider,
  id: string,
  result: InteractionResult,
  cookieHeader: string | undefined,
): Promise<string | undefined> {
  try {
    return await provider.interactions.finish(REALM, id, result, cookieHeader);
  } catch (error) {
    if (!(error instanceof InteractionError)) throw error;
    return undefined;
  }
}
