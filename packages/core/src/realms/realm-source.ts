import { ConfigError, type ConfigIssue, joinPath } from '../config/issues.js';
import { REALM_NAME, type RealmConfig, type RealmInput, realmSchema } from '../config/realm.js';
import { realmIssues } from '../config/realm-rules.js';
import { salvage } from '../config/salvage.js';
import { buildRealm, type Realm } from './realm.js';

/** The host application's own realm lookup, for realms kept in a database or an admin service. */
export type RealmLoader = (
  name: string,
) => Promise<RealmInput | undefined> | RealmInput | undefined;

/** Finds a realm by its path segment. */
export interface RealmSource {
  get(name: string): Promise<Realm | undefined>;
}

/** Rules a realm must meet in a particular provider (e.g. CIBA needs an authenticator push). */
export type ProviderRealmRules = (config: RealmConfig) => ConfigIssue[];

/**
 * Validates one realm (shape, then cross-field rules on what has the right shape; only the rules
 * for one `parsedRealm` marked) and throws every issue at once.
 */
export function validateRealm(
  input: unknown,
  path = '',
  providerRules: ProviderRealmRules = () => [],
): RealmConfig {
  if (parsedRealms.has(input as object))
    return checkRules(input as RealmConfig, path, providerRules);
  const { issues, value, inInput } = salvage(realmSchema, input, path);
  const ruleIssues = value ? inInput([...realmIssues(value), ...providerRules(value)]) : [];
  if (!value || issues.length + ruleIssues.length > 0) {
    throw new ConfigError([...issues, ...ruleIssues]);
  }
  return value;
}

/** Realm configurations a realm schema already produced: their shape is not checked again. */
const parsedRealms = new WeakSet<object>();

/**
 * Marks `config` as what `realmSchema`, or a schema extending it, made of a realm: given to the
 * provider (a realm loader's answer) or to `validateRealm`, it is checked against the cross-field
 * rules only, not parsed a second time (a realm's first request paid for both). For a host that
 * parses the realms it stores with its own schema on every read; never for anything unparsed.
 */
export function parsedRealm<Config extends RealmConfig>(config: Config): Config {
  parsedRealms.add(config);
  return config;
}

/** The cross-field rules of core and of the provider, on a realm of the right shape. */
function checkRules(
  config: RealmConfig,
  path: string,
  providerRules: ProviderRealmRules,
): RealmConfig {
  const issues = [...realmIssues(config), ...providerRules(config)];
  if (issues.length > 0) {
    throw new ConfigError(issues.map((issue) => ({ ...issue, path: joinPath(path, issue.path) })));
  }
  return config;
}

/**
 * Validates a list of realms, each under its own path, and collects every problem: each realm's
 * own, and names used twice. Returns the realms that are valid beside all the issues.
 */
export function validateRealms(
  entries: ReadonlyArray<{ path: string; input: unknown }>,
  providerRules?: ProviderRealmRules,
): {
  realms: RealmConfig[];
  issues: ConfigIssue[];
} {
  const realms: RealmConfig[] = [];
  const issues: ConfigIssue[] = [];
  const names = new Set<string>();
  for (const { path, input } of entries) {
    try {
      const config = validateRealm(input, path, providerRules);
      if (names.has(config.name)) {
        issues.push({ path: joinPath(path, 'name'), message: `duplicate realm "${config.name}"` });
      }
      names.add(config.name);
      realms.push(config);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues);
    }
  }
  return { realms, issues };
}

/** Realms fixed at start: validated once, all problems reported together. */
export function staticRealmSource(
  inputs: readonly unknown[],
  baseUrl: string,
  providerRules?: ProviderRealmRules,
): RealmSource {
  const { realms: configs, issues } = validateRealms(
    inputs.map((input, index) => ({ path: `realms[${index}]`, input })),
    providerRules,
  );
  if (issues.length > 0) throw new ConfigError(issues);
  const realms = new Map(configs.map((config) => [config.name, buildRealm(config, baseUrl)]));
  return { get: async (name) => realms.get(name) };
}

/**
 * Realms from the host's loader. Each loaded object is validated once: returning the same object
 * again reuses the built realm, returning a new one (changed configuration) rebuilds it.
 */
export function loaderRealmSource(
  load: RealmLoader,
  baseUrl: string,
  providerRules?: ProviderRealmRules,
): RealmSource {
  const built = new WeakMap<object, Realm>();
  return {
    async get(name) {
      // The host's loader only ever sees names a realm could have, never arbitrary path text.
      if (!REALM_NAME.test(name)) return undefined;
      const input = await load(name);
      if (input === undefined) return undefined;
      let realm = built.get(input);
      if (!realm) {
        realm = buildRealm(validateRealm(input, `realm "${name}"`, providerRules), baseUrl);
        built.set(input, realm);
      }
      return realm.name === name ? realm : undefined;
    },
  };
}
