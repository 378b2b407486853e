import type { ClientAuthMethod } from '../../config/client.js';
import type { RealmContext } from '../../context.js';
import type { Client } from '../../realms/realm.js';
import type { PresentedCredentials } from '../presented.js';
import { verifyClientAssertion } from './client-assertion.js';
import { verifyClientSecret } from './client-secret.js';

type Verifier = (
  client: Client | undefined,
  presented: PresentedCredentials,
  context: RealmContext,
  endpointUrl: string,
) => boolean | Promise<boolean>;

interface MethodEntry {
  /** The way of presenting credentials this registered method expects. */
  presentedAs: PresentedCredentials['kind'];
  verify: Verifier;
}

/** One entry per method the configuration accepts: the Record type makes the two lists agree. */
const METHODS: Record<ClientAuthMethod, MethodEntry> = {
  client_secret_basic: { presentedAs: 'basic', verify: verifyClientSecret },
  client_secret_post: { presentedAs: 'post', verify: verifyClientSecret },
  client_secret_jwt: { presentedAs: 'assertion', verify: verifyClientAssertion },
  private_key_jwt: { presentedAs: 'assertion', verify: verifyClientAssertion },
  none: { presentedAs: 'none', verify: (client) => client !== undefined },
};

/** Client authentication methods by registered name (OIDC Core 1.0 §9). */
export const CLIENT_AUTH_REGISTRY: ReadonlyMap<ClientAuthMethod, MethodEntry> = new Map(
  Object.entries(METHODS) as Array<[ClientAuthMethod, MethodEntry]>,
);

export const SUPPORTED_CLIENT_AUTH_METHODS = [...CLIENT_AUTH_REGISTRY.keys()];
