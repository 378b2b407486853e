/**
 * A realm written through the admin API whose client secrets do not open with this server's key:
 * the key is derived from cookie_secret, so the realm was written with another one. The message
 * names the realm and the clients, never a secret, sealed or not, so it can be logged and shown.
 */
export class RealmSecretsUnreadable extends Error {
  override name = 'RealmSecretsUnreadable';
  readonly realm: string;
  readonly clientIds: readonly string[];
  /** Whether its registration's initial access token does not open either. */
  readonly initialAccessToken: boolean;

  /** `keyConfigured`: whether the config sets cookie_secret, which decides the likely cause. */
  constructor(
    realm: string,
    clientIds: readonly string[],
    keyConfigured: boolean,
    { initialAccessToken = false }: { initialAccessToken?: boolean } = {},
  ) {
    const clients = clientIds.map((id) => JSON.stringify(id)).join(', ');
    const sealed = [
      ...(clientIds.length > 0 ? [`the client secrets of ${clients}`] : []),
      ...(initialAccessToken ? ["its registration's initial access token"] : []),
    ].join(' and ');
    const cause = keyConfigured
      ? 'cookie_secret differs from the one the realm was written with'
      : 'the config sets no cookie_secret, while the realm was written with one';
    const secrets = [
      ...(clientIds.length > 0 ? ['client secrets'] : []),
      ...(initialAccessToken ? ['initial access token'] : []),
    ].join(' and ');
    super(
      `realm ${JSON.stringify(realm)} cannot be served: ${sealed} ${clientIds.length > 0 ? 'do' : 'does'} not open with this server's key. ` +
        `Likely cause: ${cause}. ` +
        `Fix: restore the cookie_secret the realm was written with, or PUT the realm again through the admin API (PUT /admin/realms/${realm}) with its ${secrets}.`,
    );
    this.realm = realm;
    this.clientIds = clientIds;
    this.initialAccessToken = initialAccessToken;
  }
}
