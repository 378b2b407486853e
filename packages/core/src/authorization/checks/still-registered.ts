import { findClient } from '../../client-metadata/find-client.js';
import { shownAtProvider } from '../authorization-error.js';
import { isRegisteredRedirectUri } from '../redirect-uri-match.js';
import type { ResumeState } from './resume-state.js';

/**
 * docs/interface.md §7.1 at the resume step: the configuration, or the client's metadata
 * document, may have changed while the user was signing in; a client or redirect_uri no longer
 * registered gets nothing, not even an error.
 */
export async function checkStillRegistered({ context, interaction }: ResumeState): Promise<void> {
  const { clientId, redirectUri } = interaction.request;
  const client = await findClient(context, clientId);
  if (!client || !isRegisteredRedirectUri(client, redirectUri)) {
    throw shownAtProvider(
      'invalid_request',
      'the application of this sign-in is no longer registered for it; start again',
    );
  }
}
