import { randomId } from '../crypto/random.js';
import type { ClientInput } from './client.js';

/** How long a replaced secret keeps working by default: a day to roll the new one out. */
export const DEFAULT_SECRET_OVERLAP_SECONDS = 86_400;

export interface SecretRotationOptions {
  /** How long the replaced secret keeps working; 0 ends it at once. Default 86,400 (a day). */
  overlapSeconds?: number;
  /** Milliseconds since the epoch. Default: Date.now(). */
  now?: number;
}

/** A client with a new secret, as `rotateClientSecret` makes it. */
export interface SecretRotation {
  /** The client with its new `client_secret`, the replaced one as `previous_client_secret`. */
  client: ClientInput;
  /** The new secret: 256 random bits, base64url. */
  clientSecret: string;
  /** When the replaced secret stops working, in seconds since the epoch (now for an overlap of 0). */
  previousSecretExpiresAt: number;
}

/**
 * Gives a client a new generated secret while the one it replaces keeps working for the overlap,
 * so the client's deployments can switch without downtime (docs/client-authentication.md). A
 * secret an earlier rotation left working stops at once. Serve the returned client in place of
 * the old one; its tokens keep working (`provider.clients.revokeTokens` ends them).
 */
export function rotateClientSecret(
  client: ClientInput,
  { overlapSeconds = DEFAULT_SECRET_OVERLAP_SECONDS, now = Date.now() }: SecretRotationOptions = {},
): SecretRotation {
  const clientSecret = randomId(32);
  const previousSecretExpiresAt = Math.floor(now / 1000) + overlapSeconds;
  const {
    previous_client_secret: _replaced,
    previous_client_secret_expires_at: _expired,
    ...rest
  } = client;
  const previous =
    overlapSeconds > 0 && client.client_secret !== undefined
      ? {
          previous_client_secret: client.client_secret,
          previous_client_secret_expires_at: previousSecretExpiresAt,
        }
      : {};
  return {
    client: { ...rest, client_secret: clientSecret, ...previous },
    clientSecret,
    previousSecretExpiresAt,
  };
}
