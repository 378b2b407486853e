import { describe, expect, it } from 'vitest';
import { depthProblem, MAX_JSON_DEPTH } from './json-depth.js';

/** Arrays nested `depth` levels deep around a number. */
const nested = (depth: number) => JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`);

describe('depthProblem', () => {
  it('accepts values nested up to the limit, scalars included', () => {
    expect(depthProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(depthProblem({ a: [{ b: 'c' }] }, 3)).toBeUndefined();
    expect(depthProblem('text')).toBeUndefined();
  });

  it('refuses one level more, and measures any depth without running out of stack', () => {
    const message = `nests objects and arrays more than ${MAX_JSON_DEPTH} levels deep`;
    expect(depthProblem(nested(MAX_JSON_DEPTH + 1))).toBe(message);
    expect(depthProblem({ a: [{ b: {} }] }, 3)).toBe(
      'nests objects and arrays more than 3 levels deep',
    );
    expect(depthProblem(nested(200_000))).toBe(message);
  });
});
