/**
 * Generates docs/configuration.md from the zod schemas, so the reference cannot drift from the
 * code. Run `npx tsx packages/core/scripts/config-docs.ts` after changing a schema;
 * test/docs/configuration.test.ts fails while the committed file is out of date.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { clientSchema } from '../src/config/client.js';
import { providerOptionsSchema } from '../src/config/provider.js';
import { realmSchema } from '../src/config/realm.js';
import { resourceSchema } from '../src/config/resource.js';
import { trustedIssuerSchema } from '../src/config/trusted-issuer.js';

export const CONFIGURATION_DOCS_PATH = fileURLToPath(
  new URL('../../../docs/configuration.md', import.meta.url),
);
export const REGENERATE_COMMAND = 'npx tsx packages/core/scripts/config-docs.ts';

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
}

interface Section {
  title: string;
  intro: string;
  schema: z.ZodType;
}

const SECTIONS: Section[] = [
  {
    title: 'Provider options',
    intro:
      'The plain-data options of `createProvider(options)`; it also takes `realms` (the list below, or a loader), and optionally `store`, `keys`, `signer`, `accounts`, `interactionUrl`, `authenticatorPush`, `now` and `onError`.',
    schema: providerOptionsSchema,
  },
  {
    title: 'Realm',
    intro: 'One entry of `realms`. Its issuer is `{baseUrl}/oauth/{name}`.',
    schema: realmSchema,
  },
  {
    title: 'Resource',
    intro: "One entry of a realm's `resources`: a Protected Resource (RFC 8707).",
    schema: resourceSchema,
  },
  {
    title: 'Client',
    intro: "One entry of a realm's `clients`.",
    schema: clientSchema,
  },
  {
    title: 'TrustedIssuer',
    intro:
      "One entry of a realm's `trusted_issuers`: whose JWTs the jwt-bearer grant accepts (RFC 7523, docs/delegation.md).",
    schema: trustedIssuerSchema,
  },
];

/** Kept by hand: these rules live in config/client-rules.ts and config/realm-rules.ts. */
const CROSS_FIELD_RULES = `## Rules across fields

Checked when the configuration is loaded, after the shapes above. Each problem is reported with
its path, e.g. \`realms[0].clients[1].client_secret: is required for client_secret_post\`, and
every problem is reported at once: the rules run on whatever has the right shape, so a value
refused elsewhere hides none of them, except those of the object holding it (a client with a
refused field, a realm with refused \`scopes\`), which are checked once it is fixed.

Client (\`config/client-rules.ts\`):

- \`client_secret\` is required for \`client_secret_post\`, \`client_secret_basic\` and
  \`client_secret_jwt\`, and must not be set for any other method.
- With \`client_secret_jwt\` the secret must be at least 32 characters (HS256 needs a key as long
  as its output, RFC 7518 §3.2), and so must \`previous_client_secret\`.
- \`previous_client_secret\` (the secret a rotation replaced, accepted until
  \`previous_client_secret_expires_at\`) needs a \`client_secret\` and its
  \`previous_client_secret_expires_at\`, which is only set with it.
- \`private_key_jwt\` needs \`jwks\` or \`jwks_uri\`; other methods must set neither; \`jwks\` and
  \`jwks_uri\` exclude each other.
- \`token_endpoint_auth_signing_alg\` is only for \`client_secret_jwt\` (an HMAC algorithm) and
  \`private_key_jwt\` (an asymmetric algorithm).
- \`client_credentials\` in \`grant_types\` needs \`application_type: "web"\` and a method other
  than \`none\`.
- \`authorization_code\` or \`implicit\` in \`grant_types\` (the default is
  \`authorization_code\`) needs at least one \`redirect_uris\` entry; a client that only
  introspects, such as a resource server, sets \`grant_types: []\`.
- A \`web\` client's redirect URIs use https; plain http only to \`localhost\`, \`127.0.0.1\`
  or \`[::1]\` (OpenID Connect Dynamic Client Registration §2, \`application_type\`).
- Every scope of \`default_scope\` must be in the client's \`scope\`.
- A public client (\`none\`) must keep \`require_pkce\` (RFC 9700 §2.1.1).
- The CIBA, token-exchange and jwt-bearer grant types need a method other than \`none\`.
- \`token_exchange\` is required with the token-exchange grant type, and only used with it.

Realm (\`config/realm-rules.ts\`):

- \`access_token_format: "opaque"\` needs \`access_token_retention_policy: "store"\` (an opaque
  token is only a reference to its stored record).
- \`scopes\` has no duplicates; \`client_id\`s and resource \`uri\`s are unique within the realm.
- A client's \`scope\` and \`default_scope\`, and a resource's \`scopes\`, name only scopes of the
  realm.
- A resource's \`client_id\` names a client of the realm.
- A client with the CIBA grant type needs the realm's \`ciba\` settings.
- A client with the jwt-bearer grant type needs at least one \`trusted_issuers\` entry.
- A client's \`token_exchange.resources\` name resources of the realm.
- \`trusted_issuers\` have unique \`issuer\`s, each with exactly one of \`jwks_uri\` and
  \`jwks\`.

Realm lists: realm \`name\`s are unique.

Provider options: an option \`createProvider\` does not know (\`realm\`, \`interactionURL\`) is an
error with its own path, \`realms\` must be a list or a loader function, and the host's objects
and functions (\`store\`, \`now\`, …) must be of that kind.
`;

export function renderConfigurationDocs(): string {
  const parts = [
    '# Configuration reference',
    '',
    `<!-- Generated from the zod schemas in packages/core/src/config by \`${REGENERATE_COMMAND}\`; do not edit by hand. -->`,
    '',
    'Unknown keys are errors (a typo fails at start with its path), and the resolved configuration',
    'is frozen. "Required" fields have no default.',
    '',
  ];
  for (const section of SECTIONS) parts.push(renderSection(section));
  parts.push(CROSS_FIELD_RULES);
  return parts.join('\n');
}

function renderSection({ title, intro, schema }: Section): string {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  const rows = fieldRows(json, '', title);
  return [
    `## ${title}`,
    '',
    intro,
    '',
    '| Field | Type | Required | Default | Description |',
    '|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** One row per field; fields of a nested object (not of an array) follow as `parent.child`. */
function fieldRows(object: JsonSchema, prefix: string, section: string): string[] {
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties ?? {}).flatMap(([name, field]) => {
    const path = `${prefix}${name}`;
    if (!field.description && !prefix)
      throw new Error(`${section}.${path} has no .describe() text`);
    const row = cells([
      `\`${path}\``,
      typeText(field),
      required.has(name) ? 'yes' : 'no',
      field.default === undefined ? '' : `\`${JSON.stringify(field.default)}\``,
      field.description ?? '',
    ]);
    const nested =
      field.type === 'object' && field.properties ? fieldRows(field, `${path}.`, section) : [];
    return [row, ...nested];
  });
}

function typeText(schema: JsonSchema): string {
  if (schema.enum) return schema.enum.map((value) => `\`${JSON.stringify(value)}\``).join(' or ');
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.anyOf) return schema.anyOf.map(typeText).join(' or ');
  if (schema.type === 'array') {
    const items = schema.items ?? {};
    const list = schema.minItems ? 'non-empty list' : 'list';
    if (items.enum) return `${list}, each ${typeText(items)}`;
    return `${list} of ${items.type ?? 'any'}s`;
  }
  const type = schema.type ?? 'any';
  const bounds =
    rangeText(statedBound(schema.minimum), statedBound(schema.maximum), '') ??
    rangeText(schema.minLength, schema.maxLength, ' characters');
  return bounds ? `${type}, ${bounds}` : type;
}

/** zod bounds every integer by the safe-integer range, which is no limit a reader needs. */
function statedBound(bound: number | undefined): number | undefined {
  return bound === undefined || Math.abs(bound) === Number.MAX_SAFE_INTEGER ? undefined : bound;
}

function rangeText(
  min: number | undefined,
  max: number | undefined,
  unit: string,
): string | undefined {
  if (min !== undefined && max !== undefined) return `${min} to ${max}${unit}`;
  if (min !== undefined) return `at least ${min}${unit}`;
  if (max !== undefined) return `at most ${max}${unit}`;
  return undefined;
}

function cells(values: string[]): string {
  return `| ${values.map((value) => value.replaceAll('|', '\\|').replaceAll('\n', ' ')).join(' | ')} |`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(CONFIGURATION_DOCS_PATH, renderConfigurationDocs());
  console.log(`wrote ${CONFIGURATION_DOCS_PATH}`);
}
