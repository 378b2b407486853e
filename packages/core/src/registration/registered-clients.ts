import { base64url } from 'jose';
import type { ClientConfig } from '../config/client.js';
import type { RegistrationConfig } from '../config/registration.js';
import { nowSeconds, type RealmContext } from '../context.js';
import { emitEvent } from '../events/emit.js';
import { revokeClientTokens } from '../lifecycle/client-revocation.js';
import { buildClient, type Client } from '../realms/realm.js';
import { indexClient, indexedClientIds, unindexClients } from './client-index.js';

/**
 * Clients registered through RFC 7591, one record each, without expiry: a client is removed
 * once it got no token for the realm's `unused_client_seconds`. Secrets are kept as digests
 * only, so neither a store dump nor a backup hands anyone a client's credentials.
 */
const NAMESPACE = 'registered_client';
/** A client's last use is written at most this often: one write a day, not one per token. */
const TOUCH_SECONDS = 86_400;

export interface RegisteredClientRecord {
  /** The client as validated at registration or at its last update, without a secret. */
  config: ClientConfig;
  /** SHA-256 (base64url) of its client_secret, for the client_secret_basic and _post methods. */
  secret_digest?: string;
  /** SHA-256 (base64url) of its registration access token (RFC 7592). */
  registration_token_digest: string;
  /** Seconds since the epoch. */
  client_id_issued_at: number;
  /** Seconds since the epoch of its registration or of a token request, to the day. */
  last_used_at: number;
}

/** The time of each registered Client's record, to touch it without reading it again. */
const lastUse = new WeakMap<Client, number>();

/** The record of a registered client of the realm, or undefined (unknown, or removed unused). */
export async function registeredClientRecord(
  context: RealmContext,
  clientId: string,
): Promise<RegisteredClientRecord | undefined> {
  const settings = context.realm.config.registration;
  if (!settings) return undefined;
  const record = await context.store.get<RegisteredClientRecord>(
    NAMESPACE,
    recordId(context, clientId),
  );
  if (!record) return undefined;
  if (isUnused(context, settings, record)) {
    await removeRegisteredClient(context, clientId);
    return undefined;
  }
  return record;
}

/** The registered client as handlers use it, or undefined. */
export async function registeredClient(
  context: RealmContext,
  clientId: string,
): Promise<Client | undefined> {
  const record = await registeredClientRecord(context, clientId);
  return record && clientOfRecord(context, record);
}

/** Builds the Client of a record, in the realm as it is configured now. */
export function clientOfRecord(context: RealmContext, record: RegisteredClientRecord): Client {
  const { realm } = context;
  const client = buildClient(record.config, realm.config.signing_alg, {
    source: 'registration',
    allowPrivateNetworks: realm.config.registration?.private_networks ?? false,
    secretDigest:
      record.secret_digest === undefined ? undefined : base64url.decode(record.secret_digest),
  });
  lastUse.set(client, record.last_used_at);
  return client;
}

/**
 * Writes a new client unless the realm holds `max_clients` already: false then. The record is
 * written before the client is counted, so a sweep never takes a registration under way for one
 * that failed halfway; a refused client's record is deleted before anyone learnt its credentials.
 */
export async function addRegisteredClient(
  context: RealmContext,
  settings: RegistrationConfig,
  record: RegisteredClientRecord,
): Promise<boolean> {
  const { store, realm } = context;
  const clientId = record.config.client_id;
  const id = recordId(context, clientId);
  await store.set(NAMESPACE, id, record);
  let added = await indexClient(store, realm.name, clientId, settings.max_clients);
  if (!added && (await sweepUnusedClients(context)) > 0) {
    added = await indexClient(store, realm.name, clientId, settings.max_clients);
  }
  if (!added) await store.delete(NAMESPACE, id);
  return added;
}

/** Replaces a registered client's record (RFC 7592 update). */
export async function replaceRegisteredClient(
  context: RealmContext,
  record: RegisteredClientRecord,
): Promise<void> {
  await context.store.set(NAMESPACE, recordId(context, record.config.client_id), record);
}

/**
 * Removes a registered client: every token it holds stops working first (the mechanism of
 * `provider.clients.revokeTokens`), then its record and its place in the count go. False when
 * there was no such client.
 */
export async function removeRegisteredClient(
  context: RealmContext,
  clientId: string,
): Promise<boolean> {
  await revokeClientTokens(context, clientId);
  const removed = await context.store.delete(NAMESPACE, recordId(context, clientId));
  await unindexClients(context.store, context.realm.name, [clientId]);
  if (removed) emitEvent(context, { type: 'client_deleted', clientId });
  return removed;
}

/** The realm's registered client_ids, the oldest first, after removing those left unused. */
export async function registeredClientIds(context: RealmContext): Promise<string[]> {
  await sweepUnusedClients(context);
  return indexedClientIds(context.store, context.realm.name);
}

/**
 * Records that the client got a token, at most once a day: a client that keeps using the realm
 * is never taken for an unused one.
 */
export async function touchRegisteredClient(context: RealmContext, client: Client): Promise<void> {
  const last = lastUse.get(client);
  const now = nowSeconds(context);
  if (last === undefined || now - last < TOUCH_SECONDS) return;
  lastUse.set(client, now);
  const id = recordId(context, client.id);
  const found = await context.store.read<RegisteredClientRecord>(NAMESPACE, id);
  if (found) {
    // Lost to a concurrent update: that write is as recent a sign of life.
    await context.store.replace(NAMESPACE, id, found.revision, {
      ...found.value,
      last_used_at: now,
    });
  }
}

/**
 * Removes the clients unused for longer than the realm allows, and the ids whose record is gone
 * (a removal that failed halfway); resolves with how many places it freed.
 */
async function sweepUnusedClients(context: RealmContext): Promise<number> {
  const settings = context.realm.config.registration;
  if (!settings) return 0;
  const ids = await indexedClientIds(context.store, context.realm.name);
  const records = await Promise.all(
    ids.map((id) => context.store.get<RegisteredClientRecord>(NAMESPACE, recordId(context, id))),
  );
  const unused = ids.filter((_, index) => {
    const record = records[index];
    return record === undefined || isUnused(context, settings, record);
  });
  if (unused.length === 0) return 0;
  await Promise.all(unused.map((id) => removeRegisteredClient(context, id)));
  return unused.length;
}

function isUnused(
  context: RealmContext,
  settings: RegistrationConfig,
  record: RegisteredClientRecord,
): boolean {
  return nowSeconds(context) - record.last_used_at >= settings.unused_client_seconds;
}

// client_ids are base64url, realm names have no "/": the two never run together.
const recordId = (context: RealmContext, clientId: string) =>
  `${context.realm.name}/${encodeURIComponent(clientId)}`;
