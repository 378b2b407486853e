import { describe, expect, it } from 'vitest';
import { copyAsJson, copyJsonValue } from './json-copy.js';

/** What the copy must answer: JSON's own round trip, and its text's length. */
const throughText = (value: unknown) => {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : { value: JSON.parse(text), length: text.length };
};

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
  get sum() {
    return this.x + this.y;
  }
}

const VALUES: Record<string, unknown> = {
  'a token record': {
    jti: 'f0Jx2hW3nQ',
    sub: 'user-1',
    scopes: ['openid', 'api:read'],
    iat: 1_764_000_000,
    exp: 1_764_000_600,
    claims: { userinfo: null, id_token: { email: { essential: true } } },
    resource: undefined,
  },
  'primitives at the top': 'text',
  'a number': -12.5e-7,
  'true and false': [true, false],
  null: null,
  'members JSON leaves out': { a: undefined, f: () => 1, s: Symbol('s'), kept: 1 },
  'array elements JSON writes as null': [undefined, () => 1, Symbol('s'), Number.NaN, -Infinity],
  'an array with a hole': new Array(3).fill(1, 0, 1),
  'negative zero': [-0, { z: -0 }],
  'a Date, through its toJSON': { at: new Date(Date.UTC(2026, 10, 29)) },
  'a toJSON given its key': { named: { toJSON: (key: string) => `called for ${key}` } },
  'a toJSON answering undefined': { gone: { toJSON: () => undefined }, kept: 2 },
  'boxed primitives': [new Number(3), new String('s'), new Boolean(false)],
  'a class instance: its own enumerable members': new Point(1, 2),
  'a Map and a Set': { map: new Map([['a', 1]]), set: new Set([1]) },
  'integer-like keys first, as JSON orders them': { b: 1, 2: 'two', a: 3, 1: 'one' },
  'non-ASCII text': { name: 'Zoë 日本 😀' },
  'deeper than the walk goes': JSON.parse(`${'['.repeat(100)}1${']'.repeat(100)}`),
};

describe('copyAsJson', () => {
  for (const [name, value] of Object.entries(VALUES)) {
    it(`answers what JSON's round trip answers: ${name}`, () => {
      // toStrictEqual tells -0 from 0 and an absent member from an undefined one.
      expect(copyAsJson(value)).toStrictEqual(throughText(value));
    });
  }

  it('answers undefined where JSON writes nothing', () => {
    expect(copyAsJson(undefined)).toBeUndefined();
    expect(copyAsJson(() => 1)).toBeUndefined();
    expect(copyAsJson({ toJSON: () => undefined })).toBeUndefined();
  });

  it('keeps a __proto__ member as a member, as JSON.parse does, not as a prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const copied = copyAsJson(value)?.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(copied)).toBe(Object.prototype);
    expect(Object.keys(copied)).toEqual(['__proto__', 'a']);
    expect((copied as { polluted?: boolean }).polluted).toBeUndefined();
    expect(JSON.stringify(copied)).toBe(JSON.stringify(value));
  });

  it('shares nothing mutable with the value', () => {
    const value = { list: [1], nested: { b: 2 } };
    const copied = copyAsJson(value)?.value as typeof value;
    copied.list.push(9);
    copied.nested.b = 9;
    expect(value).toEqual({ list: [1], nested: { b: 2 } });
  });

  it('throws what JSON throws: a BigInt, a cycle', () => {
    expect(() => copyAsJson({ n: 1n })).toThrow(TypeError);
    expect(() => copyAsJson({ n: Object(1n) })).toThrow(TypeError);
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(() => copyAsJson(cyclic)).toThrow(TypeError);
  });

  it('counts the text without the escapes strings may need', () => {
    const value = { quote: 'say "hi"\n' };
    expect(copyAsJson(value)?.length).toBe(
      (JSON.stringify(value) as string).length - '\\\\\\'.length,
    );
  });
});

describe('copyJsonValue', () => {
  it('copies what copyAsJson made, equal and unshared', () => {
    const made = copyAsJson(VALUES['a token record'])?.value as Record<string, unknown>;
    const copy = copyJsonValue(made);
    expect(copy).toStrictEqual(made);
    (copy.scopes as string[]).push('more');
    (copy.claims as { userinfo: unknown }).userinfo = {};
    expect(made).toStrictEqual(throughText(VALUES['a token record'])?.value);
  });

  it('keeps a __proto__ member as a member', () => {
    const made = copyAsJson(JSON.parse('{"__proto__": {"polluted": true}}'))?.value;
    const copy = copyJsonValue(made) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
  });
});
