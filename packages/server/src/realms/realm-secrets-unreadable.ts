/**
 * A realm written through the admin API whose client secrets do not open with this server's key:
 * the key is derived from cookie_secret, so the realm was written with another one. The message
 * names the realm and the clients, never a secret, sealed or not, so it can be logged and shown.
 */
export class RealmSecretsUnreadable extends Error {
  override name = 'RealmSecretsUnreadable';
  readonly realm: string;
  readonly clientIds: readonly string[];

  /** `keyConfigured`: whether the config sets cookie_secret, which decides the likely cause. */
  constructor(realm: string, clientIds: readonly string[], keyConfigured: boolean) {
    const clients = clientIds.map((id) => JSON.stringify(id)).join(', ');
    const cause = keyConfigured
      ? 'cookie_secret differs from the one the realm was written with'
      : 'the config sets no cookie_secret, while the realm was written with one';
    super(
      `realm ${JSON.stringify(realm)} cannot be served: the client secrets of ${clients} do not open with this server's key. ` +
        `Likely cause: ${cause}. ` +
        `Fix: restore the cookie_secret the realm was written with, or PUT the realm again through the admin API (PUT /admin/realms/${realm}) with its client secrets.`,
    );
    this.realm = realm;
    this.clientIds = clientIds;
  }
}
