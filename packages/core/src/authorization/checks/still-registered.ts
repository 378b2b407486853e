import { findClient } from '../../client-metadata/find-client.js';
import { DEVICE_CODE_GRANT_TYPE } from '../../config/client.js';
import { shownAtProvider } from '../authorization-error.js';
import { isRegisteredRedirectUri } from '../redirect-uri-match.js';
import type { ResumeState } from './resume-state.js';

/**
 * docs/interface.md §7.1 at the resume step: the configuration, or the client's metadata
 * document, may have changed while the user was signing in; a client or redirect_uri (for a
 * device's request: the device grant) no longer registered gets nothing, not even an error.
 */
export async function checkStillRegistered({ context, interaction }: ResumeState): Promise<void> {
  const { clientId, redirectUri, device } = interaction.request;
  const client = await findClient(context, clientId);
  // A device's request goes back to the provider's own verification page, to no redirect URI.
  const registered = device
    ? client?.grantTypes.has(DEVICE_CODE_GRANT_TYPE)
    : client && isRegisteredRedirectUri(client, redirectUri);
  if (!registered) {
    throw shownAtProvider(
      'invalid_request',
      'the application of this sign-in is no longer registered for it; start again',
    );
  }
}
