import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { isSafeDescription } from './oauth-error.js';

const PACKAGES = fileURLToPath(new URL('../../../', import.meta.url));

/** What builds an OAuth error, and which argument is its description. */
const DESCRIPTION_ARGUMENT = new Map([
  ['OAuthError', 1],
  ['redirected', 1],
  ['shownAtProvider', 1],
  ['bearerError', 2],
  ['invalidProof', 0],
  ['dpopError', 2],
]);
/** userinfo's local shorthand for bearerError; elsewhere `fail` is something else. */
const LOCAL_BUILDERS = new Map([
  ['core/src/endpoints/userinfo.ts', new Map([['fail', 1]])],
  ['core/src/authorization/request-object.ts', new Map([['invalid', 0]])],
]);

/**
 * The only values a description may interpolate: constants of the code, never a request value.
 * Keyed `{file}: {expression}`; each says where the value comes from.
 */
const CONSTANT_SUBSTITUTIONS = new Map([
  ['core/src/authorization/checks/reject-unsupported.ts: name', 'a key of UNSUPPORTED'],
  ['core/src/authorization/checks/parameter-lengths.ts: name', 'a key of MAX_LENGTHS'],
  ['core/src/authorization/checks/parameter-lengths.ts: max', 'a value of MAX_LENGTHS'],
  ['core/src/authorization/checks/stored-size.ts: MAX_STORED_REQUEST_CHARS', 'a constant'],
  ['core/src/logout/logout-request.ts: MAX_STATE_LENGTH', 'a constant'],
  ['core/src/authorization/request-object.ts: MAX_LIFETIME_SECONDS', 'a constant'],
  ['core/src/http/read-form.ts: leaked', 'an entry of CREDENTIAL_PARAMETERS'],
  ['core/src/authorization/checks/ciba-unsupported.ts: name', 'an entry of a fixed list'],
  ['core/src/authorization/checks/ciba-grant-type.ts: CIBA_GRANT_TYPE', 'a constant'],
  ['core/src/endpoints/device-authorization.ts: DEVICE_CODE_GRANT_TYPE', 'a constant'],
  ['core/src/authorization/checks/binding-message.ts: MAX_BINDING_MESSAGE', 'a constant'],
  [
    'core/src/authorization/checks/ciba-notification-token.ts: MAX_NOTIFICATION_TOKEN',
    'a constant',
  ],
  ['core/src/client-auth/presented.ts: JWT_BEARER_ASSERTION', 'a constant'],
  [
    'core/src/client-auth/methods/client-assertion.ts: MAX_ASSERTION_LIFETIME_SECONDS',
    'a constant',
  ],
  ['core/src/dpop/key-binding.ts: what', "the literal 'code' or 'refresh token'"],
  ['express/src/parsed-form.ts: reason', 'one of the fixed reasons of that file'],
  ['server/src/ciba/approval.ts: tooDeep', 'the fixed text of depthProblem, with a constant'],
  ['core/src/http/read-json.ts: MAX_DEPTH', 'a constant'],
  ['core/src/grant-types/exchange-tokens.ts: role', "'subject' or 'actor' (the Role type)"],
  ['core/src/grant-types/trusted-assertion.ts: MAX_ASSERTION_LIFETIME_SECONDS', 'a constant'],
]);

/**
 * Descriptions passed on from elsewhere rather than written at the call: another OAuthError's
 * (already checked where it was made), or text a host or an admin wrote. The OAuthError
 * constructor still maps them into the RFC 6749 character set.
 */
const FORWARDED = new Map([
  ['core/src/authorization/authorization-error.ts: description', 'its callers, checked here'],
  ['core/src/http/bearer.ts: description', 'its callers, checked here'],
  ['core/src/authorization/request-object.ts: description', 'its callers (invalid), checked here'],
  ['core/src/authorization/request-object.ts: reason(error)', 'the fixed texts of reason()'],
  ['core/src/endpoints/userinfo.ts: description', 'its callers (fail), checked here'],
  ['core/src/dpop/proof-error.ts: description', 'its callers (invalidProof), checked here'],
  ['core/src/dpop/challenge.ts: description', 'its callers (dpopError), checked here'],
  ['core/src/dpop/verify-proof.ts: problem', 'a literal of the CLAIM_CHECKS of proof-claims.ts'],
  ['core/src/dpop/nonce-header.ts: error.description', 'another OAuthError'],
  ['core/src/dpop/resource-request.ts: error.description ?? error.code', 'another OAuthError'],
  ['core/src/endpoints/userinfo.ts: error.description ?? error.code', 'another OAuthError'],
  [
    "core/src/endpoints/authorization.ts: error.description ?? 'malformed request'",
    'another OAuthError',
  ],
  ['core/src/authorization/checks/check.ts: error.description ?? error.code', 'another OAuthError'],
  [
    "core/src/authorization/checks/user-decision.ts: result.error_description ?? 'the user denied the request'",
    "the host's interaction result",
  ],
  [
    'core/src/client-metadata/find-client.ts: error.message',
    "MetadataDocumentError: its fixed reasons, the client schema's paths and messages, and OutboundError messages (which name no address, at most the client_id's own host)",
  ],
  [
    "core/src/registration/client-metadata.ts: issues.map(formatIssue).join('; ')",
    "the client metadata of a registration, checked against the client schema and rules and the realm's policy (paths, messages, and the client's own scope tokens, grant and response types and URI scheme)",
  ],
  [
    "server/src/ciba/approval.ts: zodIssues(parsed.error).map(formatIssue).join('; ')",
    "the admin API's body, checked against its schema (paths and messages of the schema)",
  ],
  [
    "server/src/admin/edit-answers.ts: issues.map(formatIssue).join('; ')",
    "the admin API's realm or client, checked against the config rules (paths and messages)",
  ],
  [
    'core/src/grant-types/trusted-assertion.ts: description',
    'the fixed texts of assertionError in that file, naming at most the claim jose refused',
  ],
  [
    'server/src/admin/edit-answers.ts: outcome.error.message',
    'RealmSecretsUnreadable: the realm and client ids the admin wrote, and a fixed cause',
  ],
]);

interface Description {
  where: string;
  node: ts.Expression | undefined;
  file: string;
  source: ts.SourceFile;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every description argument of an OAuth error built in the packages' production code. */
function descriptions(): Description[] {
  const found: Description[] = [];
  for (const pkg of readdirSync(PACKAGES)) {
    let files: string[];
    try {
      files = sourceFiles(join(PACKAGES, pkg, 'src'));
    } catch {
      continue;
    }
    for (const path of files) {
      const file = relative(PACKAGES, path);
      const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
      const builders = new Map([...DESCRIPTION_ARGUMENT, ...(LOCAL_BUILDERS.get(file) ?? [])]);
      const visit = (node: ts.Node) => {
        if (
          (ts.isCallExpression(node) || ts.isNewExpression(node)) &&
          ts.isIdentifier(node.expression)
        ) {
          const index = builders.get(node.expression.text);
          if (index !== undefined) {
            const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
            found.push({
              where: `${file}:${line + 1}`,
              node: node.arguments?.[index],
              file,
              source,
            });
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
  return found;
}

/** What is wrong with a description argument, or undefined. */
function problemOf({ node, file, source }: Description): string | undefined {
  if (!node || (ts.isIdentifier(node) && node.text === 'undefined')) return undefined;
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) {
    return isSafeDescription(node.text)
      ? undefined
      : `outside the RFC 6749 characters: ${node.text}`;
  }
  if (ts.isTemplateExpression(node)) {
    const texts = [node.head.text, ...node.templateSpans.map((span) => span.literal.text)];
    const unsafe = texts.find((text) => !isSafeDescription(text));
    if (unsafe !== undefined) return `outside the RFC 6749 characters: ${unsafe}`;
    const unknown = node.templateSpans
      .map((span) => `${file}: ${span.expression.getText(source)}`)
      .find((key) => !CONSTANT_SUBSTITUTIONS.has(key));
    return unknown && `interpolates a value not known to be a constant: ${unknown}`;
  }
  const key = `${file}: ${node.getText(source)}`;
  return FORWARDED.has(key) ? undefined : `not a literal: ${key}`;
}

describe('error descriptions written in the code', () => {
  const all = descriptions();

  it('finds the descriptions to check', () => {
    expect(all.length).toBeGreaterThan(100);
  });

  it('are literals in the RFC 6749 character set, interpolating only constants', () => {
    const problems = all.flatMap((description) => {
      const problem = problemOf(description);
      return problem ? [`${description.where}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('keep no stale entry in the lists of allowed substitutions and forwarded descriptions', () => {
    const used = new Set(
      all.flatMap(({ node, file, source }) => {
        if (!node) return [];
        if (ts.isTemplateExpression(node)) {
          return node.templateSpans.map((span) => `${file}: ${span.expression.getText(source)}`);
        }
        return [`${file}: ${node.getText(source)}`];
      }),
    );
    const stale = [...CONSTANT_SUBSTITUTIONS.keys(), ...FORWARDED.keys()].filter(
      (key) => !used.has(key),
    );
    expect(stale).toEqual([]);
  });
});
