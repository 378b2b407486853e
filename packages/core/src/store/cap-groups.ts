import type { CappedRecordOptions } from './store.js';

/** Record keys by group, each group in write order: what the memory store's caps hold. */
export class CapGroups {
  readonly #groups = new Map<string, Set<string>>();

  /** Puts the record last in the group (a record written again is the newest). */
  add(group: string, record: string): void {
    let members = this.#groups.get(group);
    if (!members) {
      members = new Set();
      this.#groups.set(group, members);
    }
    members.delete(record);
    members.add(record);
  }

  remove(group: string, record: string): void {
    const members = this.#groups.get(group);
    members?.delete(record);
    if (members?.size === 0) this.#groups.delete(group);
  }

  /** The members beyond the newest `max`, oldest first. */
  excess(group: string, max: number): string[] {
    const members = this.#groups.get(group);
    if (!members || members.size <= max) return [];
    const excess: string[] = [];
    for (const record of members) {
      if (excess.length === members.size - max) break;
      excess.push(record);
    }
    return excess;
  }

  clear(): void {
    this.#groups.clear();
  }
}

/** Throws for options no store should accept: a capped record always expires, a cap holds one. */
export function checkCappedOptions({ ttlSeconds, caps }: CappedRecordOptions): void {
  if (!(Number.isFinite(ttlSeconds) && ttlSeconds > 0)) {
    throw new RangeError(`ttlSeconds must be a positive number, got ${ttlSeconds}`);
  }
  for (const cap of caps) {
    if (!(Number.isSafeInteger(cap.max) && cap.max >= 1)) {
      throw new RangeError(`the cap "${cap.key}" must hold at least 1 record, got ${cap.max}`);
    }
  }
}
