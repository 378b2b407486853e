import { CIBA_GRANT_TYPE, JWT_BEARER_GRANT_TYPE } from './client.js';
import { clientIssues } from './client-rules.js';
import { fapi2Issues } from './fapi2.js';
import { type ConfigIssue, joinPath } from './issues.js';
import { splitScope } from './primitives.js';
import type { RealmConfig } from './realm.js';
import { ALWAYS_AVAILABLE_ID_TOKEN_ALG } from './signing-algorithms.js';

/** Rules across a realm's clients, resources and scopes. Paths are relative to the realm. */
export function realmIssues(realm: RealmConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const problem = (path: string, message: string) => issues.push({ path, message });
  const scopes = new Set(realm.scopes);

  if (
    realm.access_token_format === 'opaque' &&
    realm.access_token_retention_policy === 'no-store'
  ) {
    problem(
      'access_token_format',
      'opaque access tokens need access_token_retention_policy "store"',
    );
  }
  for (const index of findDuplicates(realm.scopes)) problem(`scopes[${index}]`, 'is a duplicate');

  const clientIds = new Set<string>();
  realm.clients.forEach((client, index) => {
    const at = `clients[${index}]`;
    if (clientIds.has(client.client_id))
      problem(`${at}.client_id`, `duplicate client_id "${client.client_id}"`);
    clientIds.add(client.client_id);
    for (const issue of clientIssues(client))
      issues.push({ ...issue, path: joinPath(at, issue.path) });
    const idTokenAlg = client.id_token_signed_response_alg;
    if (
      idTokenAlg !== undefined &&
      idTokenAlg !== realm.signing_alg &&
      idTokenAlg !== ALWAYS_AVAILABLE_ID_TOKEN_ALG
    ) {
      problem(
        `${at}.id_token_signed_response_alg`,
        `must be ${ALWAYS_AVAILABLE_ID_TOKEN_ALG} or the realm's signing_alg (${realm.signing_alg})`,
      );
    }
    if (client.grant_types.includes(CIBA_GRANT_TYPE) && realm.ciba === undefined) {
      problem(`${at}.grant_types`, `${CIBA_GRANT_TYPE} needs the realm's ciba settings`);
    }
    if (client.grant_types.includes(JWT_BEARER_GRANT_TYPE) && realm.trusted_issuers.length === 0) {
      problem(`${at}.grant_types`, `${JWT_BEARER_GRANT_TYPE} needs the realm's trusted_issuers`);
    }
    client.token_exchange?.resources.forEach((uri, i) => {
      if (!realm.resources.some((resource) => resource.uri === uri))
        problem(`${at}.token_exchange.resources[${i}]`, `names unknown resource "${uri}"`);
    });
    for (const [field, value] of [
      ['scope', client.scope],
      ['default_scope', client.default_scope],
    ] as const) {
      for (const scope of splitScope(value ?? '')) {
        if (!scopes.has(scope)) problem(`${at}.${field}`, `names unknown scope "${scope}"`);
      }
    }
  });

  const uris = new Set<string>();
  realm.resources.forEach((resource, index) => {
    const at = `resources[${index}]`;
    if (uris.has(resource.uri)) problem(`${at}.uri`, `duplicate resource "${resource.uri}"`);
    uris.add(resource.uri);
    const client = realm.clients.find((c) => c.client_id === resource.client_id);
    if (!client) problem(`${at}.client_id`, `names unknown client "${resource.client_id}"`);
    else if (client.token_endpoint_auth_method === 'none') {
      problem(
        `${at}.client_id`,
        `names public client "${resource.client_id}": introspection needs a client that authenticates`,
      );
    }
    // A token issued to a client without a resource has the client_id as its audience.
    if (clientIds.has(resource.uri)) problem(`${at}.uri`, 'must not equal a client_id');
    resource.scopes.forEach((scope, i) => {
      if (!scopes.has(scope)) problem(`${at}.scopes[${i}]`, `names unknown scope "${scope}"`);
    });
  });
  issues.push(...registrationIssues(realm, scopes));
  issues.push(...trustedIssuerIssues(realm));
  issues.push(...fapi2Issues(realm));
  return issues;
}

/** Registration needs a way in, and may only hand out what the realm has. */
function registrationIssues(realm: RealmConfig, scopes: ReadonlySet<string>): ConfigIssue[] {
  const registration = realm.registration;
  if (!registration) return [];
  const issues: ConfigIssue[] = [];
  if (registration.initial_access_token === undefined && !registration.open) {
    issues.push({
      path: 'registration',
      message: 'needs initial_access_token or open: true',
    });
  }
  registration.scopes?.forEach((scope, index) => {
    if (!scopes.has(scope)) {
      issues.push({
        path: `registration.scopes[${index}]`,
        message: `names unknown scope "${scope}"`,
      });
    }
  });
  if (registration.grant_types.includes(CIBA_GRANT_TYPE) && realm.ciba === undefined) {
    issues.push({
      path: 'registration.grant_types',
      message: `${CIBA_GRANT_TYPE} needs the realm's ciba settings`,
    });
  }
  return issues;
}

function trustedIssuerIssues(realm: RealmConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const seen = new Set<string>();
  realm.trusted_issuers.forEach((trusted, index) => {
    const at = `trusted_issuers[${index}]`;
    if (seen.has(trusted.issuer))
      issues.push({ path: `${at}.issuer`, message: `duplicate issuer "${trusted.issuer}"` });
    seen.add(trusted.issuer);
    if ((trusted.jwks === undefined) === (trusted.jwks_uri === undefined))
      issues.push({
        path: `${at}.jwks_uri`,
        message: 'exactly one of jwks_uri and jwks is required',
      });
  });
  return issues;
}

function findDuplicates(values: readonly string[]): number[] {
  const seen = new Set<string>();
  const duplicates: number[] = [];
  values.forEach((value, index) => {
    if (seen.has(value)) duplicates.push(index);
    seen.add(value);
  });
  return duplicates;
}
