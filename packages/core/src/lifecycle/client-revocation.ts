import type { RealmContext } from '../context.js';

/**
 * When every token a client held was revoked at once (a leaked secret, a deleted client): one
 * record per client, which outlives every token issued before it, so a client created again under
 * the same client_id never revives them.
 */
const NAMESPACE = 'client_tokens_revoked';

interface ClientRevocation {
  /** Milliseconds since the epoch: a token issued before it no longer works. */
  before: number;
}

/**
 * Makes every access and refresh token the client holds stop working at once, at every instance
 * sharing the store; tokens issued from now on work. Tokens record when they were issued in
 * milliseconds, so a token issued right after the revocation is not taken for an older one.
 */
export async function revokeClientTokens(context: RealmContext, clientId: string): Promise<void> {
  const { access_token_ttl, refresh_token_ttl } = context.realm.config;
  const revocation: ClientRevocation = { before: context.now() };
  await context.store.set(NAMESPACE, recordId(context, clientId), revocation, {
    // Refresh tokens never outlive refresh_token_ttl (rotation keeps the first one's expiry).
    ttlSeconds: Math.max(access_token_ttl, refresh_token_ttl) + 1,
  });
}

/**
 * Since when the client's tokens are revoked (milliseconds since the epoch), or undefined: read
 * beside a token's own record where its client is known first, so it costs no extra wait.
 */
export async function clientRevokedBefore(
  context: RealmContext,
  clientId: string,
): Promise<number | undefined> {
  const revocation = await context.store.get<ClientRevocation>(
    NAMESPACE,
    recordId(context, clientId),
  );
  return revocation?.before;
}

/**
 * Whether a token issued at `iat` (seconds) or `iatMs` was revoked with its client; a record
 * written before tokens kept milliseconds counts from the start of its second.
 */
export function revokedWithClient(
  revokedBefore: number | undefined,
  { iat, iatMs = iat * 1000 }: { iat: number; iatMs?: number | undefined },
): boolean {
  return revokedBefore !== undefined && iatMs < revokedBefore;
}

// client_ids may contain "/": encoding keeps realm and client apart.
const recordId = (context: RealmContext, clientId: string) =>
  `${context.realm.name}/${encodeURIComponent(clientId)}`;
