import type { z } from 'zod';
import { type ConfigIssue, formatPath, joinPath } from './issues.js';

type Segment = string | number;
type Path = readonly Segment[];

/**
 * A value a parse refused, left out of the input so that the rest parses: an `element` of a
 * list, the `value` of a key (a default may then stand in), or an `unknown` key.
 */
interface LeftOut {
  /** In the input's coordinates. */
  path: Path;
  kind: 'element' | 'value' | 'unknown';
}

/** What a schema makes of an input, with its problems, and what parses once they are left out. */
export interface Salvaged<T> {
  /**
   * Every problem of the input's shape: those a parse finds, then those it finds once their
   * values are left out (rules of an object that fail while any of its fields does).
   */
  issues: ConfigIssue[];
  /** The input with every value the schema refused left out, parsed; undefined when none is. */
  value: T | undefined;
  /**
   * Issues found in `value` (its cross-field rules, say) with the input's paths, without those
   * a left-out value may have caused (see hiddenBy): they show, if still there, once the value
   * is fixed.
   */
  inInput(found: readonly ConfigIssue[]): ConfigIssue[];
}

/** Enough for a value refused at each level of a config (file, realm, client, field). */
const MAX_PASSES = 8;

/**
 * Parses `input` with `schema`, leaving out what it refuses until the rest parses, so that one
 * run can list every problem: those of the shape, and those of rules run on what parsed. Paths
 * of the issues are put under `prefix`.
 */
export function salvage<S extends z.ZodType>(
  schema: S,
  input: unknown,
  prefix = '',
): Salvaged<z.output<S>> {
  const leftOut: LeftOut[] = [];
  const issues: ConfigIssue[] = [];
  const reported = new Set<string>();
  const report = (path: Path, message: string) => {
    const issue = { path: joinPath(prefix, formatPath(path)), message };
    const key = `${issue.path}\n${message}`;
    if (!reported.has(key)) issues.push(issue);
    reported.add(key);
  };
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    const before = [...leftOut];
    const result = schema.safeParse(pass === 0 ? input : without(input, before));
    if (result.success) {
      return {
        issues,
        value: result.data,
        inInput: (found) =>
          found.flatMap((issue) => {
            const path = inputPath(parsePath(issue.path), before);
            return hiddenBy(path, before)
              ? []
              : [{ path: joinPath(prefix, formatPath(path)), message: issue.message }];
          }),
      };
    }
    for (const issue of result.error.issues) {
      const path = inputPath(issue.path as Segment[], before);
      if (pass === 0 || !hiddenBy(path, before)) report(path, issue.message);
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : undefined;
      for (const out of toLeaveOut(input, path, keys, leftOut)) {
        if (!leftOut.some((each) => samePath(each.path, out.path))) leftOut.push(out);
      }
    }
    if (leftOut.length === before.length) break;
  }
  return { issues, value: undefined, inInput: () => [] };
}

/** What to leave out for an issue at `path`: the value, or its object when it is missing. */
function toLeaveOut(
  input: unknown,
  path: Path,
  unknownKeys: readonly string[] | undefined,
  leftOut: readonly LeftOut[],
): LeftOut[] {
  if (unknownKeys) return unknownKeys.map((key) => ({ path: [...path, key], kind: 'unknown' }));
  const missing =
    valueAt(input, path) === undefined || leftOut.some((out) => samePath(out.path, path));
  const target = missing ? path.slice(0, -1) : path;
  if (target.length === 0) return [];
  return [{ path: target, kind: typeof target.at(-1) === 'number' ? 'element' : 'value' }];
}

/**
 * Whether what is said at `path` may come of a left-out value rather than of the input: a
 * left-out field may hide what its object and everything in it says (a realm's `scopes`, say,
 * are what its clients' scopes are checked against); a left-out element of a list, the same but
 * for the list's other elements, which stand on their own.
 */
function hiddenBy(path: Path, leftOut: readonly LeftOut[]): boolean {
  return leftOut.some((out) => {
    if (out.kind === 'unknown') return startsWith(path, out.path);
    if (!startsWith(path, owner(out.path))) return false;
    if (out.kind === 'value') return true;
    const list = out.path.slice(0, -1);
    const sibling =
      path.length > list.length && startsWith(path, list) && path[list.length] !== out.path.at(-1);
    return !sibling;
  });
}

/** The object a path's field belongs to: `clients[0]` for `clients[0].redirect_uris[1]`. */
function owner(path: Path): Path {
  let end = path.length;
  while (end > 0 && typeof path[end - 1] === 'number') end -= 1;
  return path.slice(0, Math.max(0, end - 1));
}

/** A path in the input with some elements left out, as a path in the input itself. */
function inputPath(path: Path, leftOut: readonly LeftOut[]): Segment[] {
  const result: Segment[] = [];
  for (const segment of path) {
    if (typeof segment !== 'number') {
      result.push(segment);
      continue;
    }
    const gone = new Set(
      leftOut
        .filter((out) => out.kind === 'element' && out.path.length === result.length + 1)
        .filter((out) => startsWith(out.path, result))
        .map((out) => out.path.at(-1)),
    );
    let index = -1;
    for (let kept = -1; kept < segment; ) {
      index += 1;
      if (!gone.has(index)) kept += 1;
    }
    result.push(index);
  }
  return result;
}

/** A copy of `value` without what was left out; only the parts on the way to it are copied. */
function without(value: unknown, leftOut: readonly LeftOut[], depth = 0): unknown {
  const here = new Set(
    leftOut.filter((out) => out.path.length === depth + 1).map((out) => out.path[depth]),
  );
  const deeper = leftOut.filter((out) => out.path.length > depth + 1);
  const inner = (key: Segment, item: unknown) => {
    const below = deeper.filter((out) => out.path[depth] === key);
    return below.length === 0 ? item : without(item, below, depth + 1);
  };
  if (Array.isArray(value)) {
    return value.flatMap((item, index) => (here.has(index) ? [] : [inner(index, item)]));
  }
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !here.has(key))
      .map(([key, item]) => [key, inner(key, item)]),
  );
}

function valueAt(input: unknown, path: Path): unknown {
  let value = input;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) {
      return undefined;
    }
    value = (value as Record<Segment, unknown>)[segment];
  }
  return value;
}

/** `clients[0].redirect_uris[1]` as segments; the inverse of formatPath. */
function parsePath(path: string): Segment[] {
  return [...path.matchAll(/\[(\d+)\]|([^.[\]]+)/g)].map(([, index, key]) =>
    index === undefined ? (key as string) : Number(index),
  );
}

function startsWith(path: Path, prefix: Path): boolean {
  return prefix.length <= path.length && prefix.every((segment, i) => path[i] === segment);
}

function samePath(a: Path, b: Path): boolean {
  return a.length === b.length && startsWith(a, b);
}
