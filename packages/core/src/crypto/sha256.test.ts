import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { javascriptSha256, runtimeSha256, SHA256, type Sha256 } from './sha256.js';

const nodeSha256 = (value: string) => createHash('sha256').update(value).digest();

const implementations: Array<[string, Sha256]> = [
  ['in JavaScript', javascriptSha256],
  ["the runtime's", runtimeSha256(globalThis, javascriptSha256)],
];

describe.each(implementations)('SHA-256 %s', (_, sha256) => {
  it.each([0, 1, 55, 56, 64, 1364, 1365, 1366, 4095, 4096, 4097, 20000])(
    'is the SHA-256 of the UTF-8 of %i characters, ASCII or not',
    (length) => {
      for (const unit of ['a', 'é', '€', '😀']) {
        const value = unit.repeat(length).slice(0, length);
        expect(sha256.bytes(value)).toEqual(new Uint8Array(nodeSha256(value)));
        expect(sha256.base64url(value)).toBe(nodeSha256(value).toString('base64url'));
      }
    },
  );

  it('gives each digest its own bytes', () => {
    const first = sha256.bytes('first');
    const second = sha256.bytes('second');
    expect(first).toEqual(new Uint8Array(nodeSha256('first')));
    expect(second).toEqual(new Uint8Array(nodeSha256('second')));
  });
});

describe('runtimeSha256', () => {
  it("is the runtime's one-shot hash on Node.js", () => {
    expect(SHA256).not.toBe(javascriptSha256);
  });

  it.each([
    ['no process', {}],
    ['no getBuiltinModule', { process: {} }],
    ['no node:crypto', { process: { getBuiltinModule: () => undefined } }],
    ['no one-shot hash', { process: { getBuiltinModule: () => ({}) } }],
    [
      'a getBuiltinModule that throws',
      {
        process: {
          getBuiltinModule: () => {
            throw new Error('no such module');
          },
        },
      },
    ],
    [
      'a hash that throws',
      {
        process: {
          getBuiltinModule: () => ({
            hash: () => {
              throw new Error('unsupported');
            },
          }),
        },
      },
    ],
    [
      'a hash with wrong answers',
      { process: { getBuiltinModule: () => ({ hash: () => 'not a digest' }) } },
    ],
  ])('falls back to JavaScript with %s', (_, runtime) => {
    expect(runtimeSha256(runtime, javascriptSha256)).toBe(javascriptSha256);
  });
});
