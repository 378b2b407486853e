/**
 * How deep JSON that comes in (the config file, admin API bodies, users' claims) may nest
 * objects and arrays: far beyond what a config needs (a user's claims are 6 levels down in the
 * file), far below what JSON.stringify, the stores and the signers take before the stack runs out.
 */
export const MAX_JSON_DEPTH = 32;

/** Why `value` is refused for its nesting, or undefined; measured without recursion. */
export function depthProblem(value: unknown, max = MAX_JSON_DEPTH): string | undefined {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    if (next.depth >= max) return `nests objects and arrays more than ${max} levels deep`;
    for (const child of Object.values(next.value)) {
      pending.push({ value: child, depth: next.depth + 1 });
    }
  }
  return undefined;
}
