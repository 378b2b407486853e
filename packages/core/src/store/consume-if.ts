import type { ConditionalConsumeResult, FieldConditions, Store } from './store.js';

/** Whether `value`'s fields meet `fields` (see `Store.consumeIf`). */
export function meetsConditions(value: unknown, fields: FieldConditions): boolean {
  const record = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  for (const [field, allowed] of Object.entries(fields)) {
    const held = record[field] ?? null;
    if (held !== null && typeof held !== 'string') return false;
    if (!allowed.includes(held)) return false;
  }
  return true;
}

/**
 * `store.consumeIf`, or for a store without it the same in two steps: `get`, the check, then
 * `consume`. The record of a one-time credential does not change once written, so what `get`
 * read is what `consume` marks.
 */
export async function consumeIf<T>(
  store: Store,
  namespace: string,
  id: string,
  fields: FieldConditions,
): Promise<ConditionalConsumeResult<T> | undefined> {
  if (store.consumeIf) return store.consumeIf<T>(namespace, id, fields);
  const value = await store.get<T>(namespace, id);
  if (value === undefined) return undefined;
  if (!meetsConditions(value, fields)) return { value, firstUse: false, matched: false };
  const consumed = await store.consume<T>(namespace, id);
  return consumed && { value: consumed.value, firstUse: consumed.firstUse, matched: true };
}
