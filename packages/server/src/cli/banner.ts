import { MIN_SECRET_LENGTH, type ServerConfig } from '../config/server-config.js';

/** One line per realm with its discovery URL: what an operator pastes into a client. */
export function discoveryLines(config: ServerConfig): string[] {
  return config.realms.map(
    (realm) =>
      `realm ${realm.name}: ${config.base_url}/oauth/${realm.name}/.well-known/openid-configuration`,
  );
}

/**
 * Every client secret and user password, behind a warning. Only printed when the config sets
 * print_credentials: by default no secret ever reaches the terminal or a log.
 */
export function credentialLines(config: ServerConfig): string[] {
  const lines = [
    'WARNING: print_credentials is on. These credentials are for local development only.',
  ];
  for (const realm of config.realms) {
    lines.push(`realm ${realm.name}:`);
    for (const client of realm.clients) {
      const secret =
        client.client_secret === undefined
          ? '(no secret)'
          : `client_secret=${client.client_secret}`;
      lines.push(`  client ${client.client_id}  ${client.token_endpoint_auth_method}  ${secret}`);
    }
    for (const user of realm.users) {
      const password =
        user.password === undefined ? '(hashed password)' : `password=${user.password}`;
      lines.push(`  user ${user.username}  ${password}`);
    }
  }
  return lines;
}

/** Settings that are valid but weak, said once at start on stderr. */
export function startupWarnings(config: ServerConfig): string[] {
  const warnings: string[] = [];
  if (config.admin_token !== undefined && config.admin_token.length < MIN_SECRET_LENGTH) {
    warnings.push(
      `warning: admin_token is shorter than ${MIN_SECRET_LENGTH} characters; whoever guesses it can rotate every realm's keys and answer CIBA requests`,
    );
  }
  const hasUsers = config.realms.some((realm) => realm.users.length > 0);
  if (hasUsers && config.cookie_secret === undefined) {
    warnings.push(
      "warning: no cookie_secret; login forms are protected with a key of this process only, so instances behind one load balancer will refuse each other's forms",
    );
  }
  return warnings;
}
