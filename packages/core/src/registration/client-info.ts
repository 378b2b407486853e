import { echoedMetadata, type RegisteredMetadata } from './client-metadata.js';
import type { RegisteredClientRecord } from './registered-clients.js';

/** A registered client as the host reads it: its metadata, never a secret or a token. */
export interface RegisteredClientInfo extends RegisteredMetadata {
  client_id: string;
  /** Seconds since the epoch. */
  client_id_issued_at: number;
  /** When it last got a token (or registered), to the day; seconds since the epoch. */
  last_used_at: number;
}

export function registeredClientInfo(record: RegisteredClientRecord): RegisteredClientInfo {
  return {
    client_id: record.config.client_id,
    client_id_issued_at: record.client_id_issued_at,
    ...echoedMetadata(record.config),
    last_used_at: record.last_used_at,
  };
}
