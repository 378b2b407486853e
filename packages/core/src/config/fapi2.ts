import type { ClientConfig } from './client.js';
import { type ConfigIssue, joinPath } from './issues.js';
import type { RealmConfig } from './realm.js';

/**
 * The FAPI 2.0 Security Profile (final, February 2025) as a realm's `profile: "fapi2"`: what it
 * asks of the realm's configuration, checked when the configuration loads. What it asks of each
 * request is enforced where the request is handled (docs/fapi2.md lists both).
 */

/** FAPI 2.0 SP §5.4-1: the only JWS algorithms, for every signature the profile involves. */
export const FAPI2_ALGORITHMS = ['ES256', 'PS256', 'EdDSA'] as const;

/** FAPI 2.0 SP §5.3.2.1-11 (a code lives at most 60 s). */
export const FAPI2_MAX_CODE_SECONDS = 60;

const ALGORITHMS: ReadonlySet<string> = new Set(FAPI2_ALGORITHMS);
const ALGORITHM_LIST = FAPI2_ALGORITHMS.join(', ');

export function isFapi2(realm: RealmConfig): boolean {
  return realm.profile === 'fapi2';
}

/** Whether a JWS algorithm is one FAPI 2.0 allows. */
export function isFapi2Algorithm(alg: string): boolean {
  return ALGORITHMS.has(alg);
}

/** What breaks the profile in a `fapi2` realm's configuration. Paths are relative to the realm. */
export function fapi2Issues(realm: RealmConfig): ConfigIssue[] {
  if (!isFapi2(realm)) return [];
  const issues: ConfigIssue[] = [];
  const problem = (path: string, message: string) => issues.push({ path, message });
  const algorithms = (path: string, values: readonly string[]) =>
    values.forEach((alg, index) => {
      if (!isFapi2Algorithm(alg)) problem(`${path}[${index}]`, notAllowed(alg));
    });

  if (!isFapi2Algorithm(realm.signing_alg)) problem('signing_alg', notAllowed(realm.signing_alg));
  algorithms(
    'request_object_signing_alg_values_supported',
    realm.request_object_signing_alg_values_supported,
  );
  if (realm.dpop.signing_alg_values !== undefined)
    algorithms('dpop.signing_alg_values', realm.dpop.signing_alg_values);
  if (realm.authorization_code_ttl > FAPI2_MAX_CODE_SECONDS) {
    problem(
      'authorization_code_ttl',
      `must be at most ${FAPI2_MAX_CODE_SECONDS} seconds in a fapi2 realm (FAPI 2.0 SP §5.3.2.1-11)`,
    );
  }
  if (realm.refresh_token_rotation_grace > 0) {
    problem(
      'refresh_token_rotation_grace',
      'is unused in a fapi2 realm: its refresh tokens are not rotated (FAPI 2.0 SP §5.3.2.1-9)',
    );
  }
  realm.registration?.token_endpoint_auth_methods.forEach((method, index) => {
    if (method !== 'private_key_jwt')
      problem(`registration.token_endpoint_auth_methods[${index}]`, onlyPrivateKeyJwt(method));
  });
  realm.clients.forEach((client, index) => {
    for (const issue of clientIssues(client))
      issues.push({ ...issue, path: joinPath(`clients[${index}]`, issue.path) });
  });
  return issues;
}

/** FAPI 2.0 SP §5.3.2.1-6, §5.3.2.2-1 and -5, §5.4: a client of a fapi2 realm. */
function clientIssues(client: ClientConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const problem = (path: string, message: string) => issues.push({ path, message });
  const method = client.token_endpoint_auth_method;
  if (method !== 'private_key_jwt') {
    problem('token_endpoint_auth_method', onlyPrivateKeyJwt(method));
    if (client.jwks === undefined && client.jwks_uri === undefined)
      problem('jwks', 'or jwks_uri is required in a fapi2 realm (private_key_jwt)');
  }
  const pinned = client.token_endpoint_auth_signing_alg;
  if (pinned !== undefined && !isFapi2Algorithm(pinned))
    problem('token_endpoint_auth_signing_alg', notAllowed(pinned));
  if (client.id_token_signed_response_alg !== undefined) {
    const alg = client.id_token_signed_response_alg;
    if (!isFapi2Algorithm(alg)) problem('id_token_signed_response_alg', notAllowed(alg));
  }
  client.jwks?.keys.forEach((key, index) => {
    const problemOfKey = keyProblem(key);
    if (problemOfKey) problem(`jwks.keys[${index}]`, problemOfKey);
  });
  client.response_types.forEach((type, index) => {
    if (type !== 'code')
      problem(
        `response_types[${index}]`,
        `"${type}" is not allowed in a fapi2 realm: only "code" (FAPI 2.0 SP §5.3.2.2-1)`,
      );
  });
  if (client.grant_types.includes('implicit')) {
    problem(
      `grant_types[${client.grant_types.indexOf('implicit')}]`,
      'implicit is not allowed in a fapi2 realm (FAPI 2.0 SP §5.3.2.2-1)',
    );
  }
  if (!client.require_pkce)
    problem('require_pkce', 'must be true in a fapi2 realm (FAPI 2.0 SP §5.3.2.2-5)');
  return issues;
}

/** A registered key that cannot sign with a FAPI 2.0 algorithm. */
function keyProblem(key: { kty: string; crv?: string; alg?: string }): string | undefined {
  if (key.alg !== undefined && !isFapi2Algorithm(key.alg)) return `alg ${notAllowed(key.alg)}`;
  if (key.kty === 'EC' && key.crv !== 'P-256')
    return `an EC key must be on P-256 (ES256) in a fapi2 realm, not ${key.crv}`;
  return undefined;
}

function notAllowed(alg: string): string {
  return `${alg} is not allowed in a fapi2 realm: only ${ALGORITHM_LIST} (FAPI 2.0 SP §5.4)`;
}

function onlyPrivateKeyJwt(method: string): string {
  return `${method} is not allowed in a fapi2 realm: only private_key_jwt (FAPI 2.0 SP §5.3.2.1-6)`;
}
