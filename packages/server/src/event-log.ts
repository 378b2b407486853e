import type { EventListener, GatehouseEvent } from '@gatehouse-oidc/core';

/**
 * The events an operator must hear about: a used refresh token or code presented again (someone
 * holds a stolen credential; its grant is revoked), and a client failing to authenticate (wrong
 * credentials, or someone guessing them). The others are the application's audit trail, not
 * the operator's alarms.
 */
const LOGGED: ReadonlySet<GatehouseEvent['type']> = new Set([
  'reuse_detected',
  'client_authentication_failed',
]);

/**
 * Writes the events operators must see as one line each, `[gatehouse] event {type}: {json}`.
 * Events hold identifiers only, never a secret or a token, so the line is written whole.
 */
export function eventLog(write: (line: string) => void): EventListener {
  return (event) => {
    if (LOGGED.has(event.type))
      write(`[gatehouse] event ${event.type}: ${JSON.stringify(event)}\n`);
  };
}
