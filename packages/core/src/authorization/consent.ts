import type { RealmContext } from '../context.js';

const CONSENT_NAMESPACE = 'consent';
/** Remembered consent lapses after a year without a new one. */
const CONSENT_TTL_SECONDS = 365 * 86_400;

interface ConsentRecord {
  scopes: string[];
}

/** The scopes this user has already granted this client. */
export async function grantedScopes(
  context: RealmContext,
  sub: string,
  clientId: string,
): Promise<Set<string>> {
  const record = await context.store.get<ConsentRecord>(
    CONSENT_NAMESPACE,
    consentId(context, sub, clientId),
  );
  return new Set(record?.scopes ?? []);
}

/** Adds newly granted scopes to what the user had granted the client before. */
export async function rememberConsent(
  context: RealmContext,
  sub: string,
  clientId: string,
  scopes: readonly string[],
): Promise<void> {
  const granted = await grantedScopes(context, sub, clientId);
  for (const scope of scopes) granted.add(scope);
  await context.store.set<ConsentRecord>(
    CONSENT_NAMESPACE,
    consentId(context, sub, clientId),
    { scopes: [...granted] },
    { ttlSeconds: CONSENT_TTL_SECONDS },
  );
}

const consentId = (context: RealmContext, sub: string, clientId: string) =>
  `${context.realm.name}/${encodeURIComponent(sub)}/${encodeURIComponent(clientId)}`;
