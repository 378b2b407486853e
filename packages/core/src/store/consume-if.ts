import type { ConditionalConsumeResult, FieldConditions, Store } from './store.js';

/** Whether `value`'s own fields meet `fields` (see `Store.consumeIf`). */
export function meetsConditions(value: unknown, fields: FieldConditions): boolean {
  const record = typeof value === 'object' && value !== null ? value : {};
  for (const [field, allowed] of Object.entries(fields)) {
    const held = Object.hasOwn(record, field)
      ? ((record as Record<string, unknown>)[field] ?? null)
      : null;
    if (held !== null && typeof held !== 'string') return false;
    if (!allowed.includes(held)) return false;
  }
  return true;
}

/**
 * `Store.consumeIf` in three steps: `get`, the check here, then `consume`. For a store without
 * `consumeIf`, and for a store's record its own evaluation cannot read (PostgreSQL's `jsonb`
 * refuses a `\u0000` that a text value keeps). Sound for one-time records, which do not change
 * once written: what `get` read is what `consume` marks.
 */
export async function consumeIfStepwise<T>(
  store: Store,
  namespace: string,
  id: string,
  fields: FieldConditions,
): Promise<ConditionalConsumeResult<T> | undefined> {
  const value = await store.get<T>(namespace, id);
  if (value === undefined) return undefined;
  if (!meetsConditions(value, fields)) return { value, firstUse: false, matched: false };
  const consumed = await store.consume<T>(namespace, id);
  return consumed && { value: consumed.value, firstUse: consumed.firstUse, matched: true };
}

/** `store.consumeIf`, or `consumeIfStepwise` for a store without it. */
export function consumeIf<T>(
  store: Store,
  namespace: string,
  id: string,
  fields: FieldConditions,
): Promise<ConditionalConsumeResult<T> | undefined> {
  return store.consumeIf
    ? store.consumeIf<T>(namespace, id, fields)
    : consumeIfStepwise<T>(store, namespace, id, fields);
}
