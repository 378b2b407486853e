import { z } from 'zod';
import { type ClientConfig, clientSchema } from '../config/client.js';
import { clientIssues } from '../config/client-rules.js';
import { type ConfigIssue, formatIssue, zodIssues } from '../config/issues.js';
import { portlessLoopback } from '../config/loopback-redirect.js';
import { splitScope, UNSAFE_NAME_CHARACTERS } from '../config/primitives.js';

/** Why a metadata document makes no client: "the client's metadata document" and the reason. */
export class MetadataDocumentError extends Error {
  override name = 'MetadataDocumentError';
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`the client's metadata document ${reason}`, options);
  }
}

/** The members a document may set; every other one is ignored, as RFC 7591 §2 asks. */
const TAKEN = [
  'client_name',
  'application_type',
  'token_endpoint_auth_method',
  'token_endpoint_auth_signing_alg',
  'jwks',
  'jwks_uri',
  'redirect_uris',
  'grant_types',
  'response_types',
] as const;

/** A document is public: nothing in it can be a secret (draft §4.1). */
const SECRET_MEMBERS = ['client_secret', 'client_secret_expires_at'];
const SECRET_METHODS = new Set(['client_secret_basic', 'client_secret_post', 'client_secret_jwt']);
const METHODS = new Set(['none', 'private_key_jwt']);
const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

/** Its client_id is a URL, longer than a configured one may be. */
const documentClientSchema = clientSchema.extend({ client_id: z.string() });

/**
 * The configuration of the client a metadata document describes, for a realm with these
 * scopes: a JSON object whose `client_id` is the URL it was fetched from, with redirect URIs,
 * authenticating with `none` (the default) or `private_key_jwt`, for the code flow and refresh
 * only. It never skips consent, always needs PKCE, and gets the scopes it names that the realm
 * has (all of the realm's when it names none). Throws a MetadataDocumentError saying why not.
 */
export function clientConfigOfDocument(
  text: string,
  clientId: string,
  realmScopes: readonly string[],
): ClientConfig {
  const document = jsonObject(text);
  if (document.client_id !== clientId) {
    throw new MetadataDocumentError('names another client_id than the URL it is at');
  }
  refuseSecrets(document);
  const taken = Object.fromEntries(
    TAKEN.filter((name) => name in document).map((name) => [name, document[name]]),
  );
  const parsed = documentClientSchema.safeParse({
    token_endpoint_auth_method: 'none',
    ...taken,
    client_id: clientId,
    scope: scopeWithin(document.scope, realmScopes),
    require_pkce: true,
    skip_consent: false,
  });
  if (!parsed.success) throw invalid(zodIssues(parsed.error));
  // The document's own rules first: they are stricter, so the general ones would only repeat them.
  const documentProblems = documentIssues(parsed.data);
  const problems = documentProblems.length > 0 ? documentProblems : clientIssues(parsed.data);
  if (problems.length > 0) throw invalid(problems);
  return parsed.data;
}

function jsonObject(text: string): Record<string, unknown> {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new MetadataDocumentError('is not JSON');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new MetadataDocumentError('is not a JSON object');
  }
  return document as Record<string, unknown>;
}

/** Only `none` and `private_key_jwt`: no secret, and nothing else that could stand for one. */
function refuseSecrets(document: Record<string, unknown>): void {
  const member = SECRET_MEMBERS.find((name) => name in document);
  if (member) {
    throw new MetadataDocumentError(`holds ${member}: a public document cannot keep a secret`);
  }
  const method = document.token_endpoint_auth_method;
  if (method === undefined || METHODS.has(method as string)) return;
  if (typeof method === 'string' && SECRET_METHODS.has(method)) {
    throw new MetadataDocumentError(
      `asks for ${method}, a shared secret, which a public document cannot keep (use none or private_key_jwt)`,
    );
  }
  throw invalid([
    { path: 'token_endpoint_auth_method', message: 'must be none or private_key_jwt' },
  ]);
}

/** The document's scopes that the realm has; all of the realm's when it names none. */
function scopeWithin(scope: unknown, realmScopes: readonly string[]): unknown {
  if (scope === undefined) return realmScopes.join(' ');
  if (typeof scope !== 'string') return scope;
  const realm = new Set(realmScopes);
  const kept = splitScope(scope).filter((each) => realm.has(each));
  if (kept.length === 0) throw new MetadataDocumentError("names none of this realm's scopes");
  return kept.join(' ');
}

/** What a document may not ask for, though a configured client could. */
function documentIssues(config: ClientConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const problem = (path: string, message: string) => issues.push({ path, message });
  if (config.redirect_uris.length === 0) problem('redirect_uris', 'must list at least one URI');
  config.redirect_uris.forEach((uri, index) => {
    if (!uri.startsWith('https://') && portlessLoopback(uri) === undefined) {
      problem(
        `redirect_uris[${index}]`,
        'must be https, or plain http to a loopback address (http://127.0.0.1, http://[::1] or http://localhost)',
      );
    }
  });
  config.grant_types.forEach((grant, index) => {
    if (!GRANT_TYPES.has(grant)) {
      problem(`grant_types[${index}]`, 'must be authorization_code or refresh_token');
    }
  });
  config.response_types.forEach((type, index) => {
    if (type !== 'code') problem(`response_types[${index}]`, 'must be code');
  });
  if (config.jwks_uri !== undefined && !config.jwks_uri.startsWith('https://')) {
    problem('jwks_uri', 'must be https');
  }
  if (config.client_name !== undefined && UNSAFE_NAME_CHARACTERS.test(config.client_name)) {
    problem('client_name', 'must not contain control or formatting characters');
  }
  return issues;
}

function invalid(issues: readonly ConfigIssue[]): MetadataDocumentError {
  return new MetadataDocumentError(
    `is not valid client metadata: ${issues.map(formatIssue).join('; ')}`,
  );
}
