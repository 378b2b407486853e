import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { salvage } from './salvage.js';

const item = z.strictObject({ id: z.string(), size: z.number().default(1) });
/** Ids are unique: a rule of the list, which zod skips while any item fails. */
const list = z.array(item).superRefine((items, ctx) => {
  items.forEach((each, index) => {
    if (items.findIndex((other) => other.id === each.id) !== index) {
      ctx.addIssue({ code: 'custom', path: [index, 'id'], message: 'duplicate' });
    }
  });
});
/** A rule run on what parsed, as the realm rules are: items larger than 2. */
const ruleIssues = (items: z.output<typeof list>) =>
  items.flatMap((each, index) =>
    each.size > 2 ? [{ path: `[${index}].size`, message: 'too large' }] : [],
  );

function check(input: unknown) {
  const { issues, value, inInput } = salvage(list, input, 'items');
  return [...issues, ...(value ? inInput(ruleIssues(value)) : [])];
}

describe('salvage', () => {
  it('finds what a refused item hid, with the paths of the input', () => {
    // Items 1 and 2 are left out: the rule finds the last one second in what parsed.
    expect(check([{ id: 'a' }, { id: 7 }, { id: 'a' }, { id: 'b', size: 3 }])).toEqual([
      { path: 'items[1].id', message: expect.stringContaining('expected string') },
      { path: 'items[2].id', message: 'duplicate' },
      { path: 'items[3].size', message: 'too large' },
    ]);
  });

  it('says nothing of an object one of whose fields was refused: a default stands in', () => {
    expect(
      check([
        { id: 'a', size: 3, colour: 'red' },
        { id: 'b', size: 'x' },
      ]),
    ).toEqual([
      { path: 'items[0]', message: expect.stringContaining('colour') },
      { path: 'items[1].size', message: expect.stringContaining('expected number') },
      { path: 'items[0].size', message: 'too large' },
    ]);
  });

  it('gives no value when the input itself is refused', () => {
    const { issues, value } = salvage(list, 'items', 'items');
    expect([issues.map((issue) => issue.path), value]).toEqual([['items'], undefined]);
  });
});
