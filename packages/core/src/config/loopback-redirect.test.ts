import { describe, expect, it } from 'vitest';
import { portlessLoopback } from './loopback-redirect.js';

describe('portlessLoopback', () => {
  it.each([
    ['http://127.0.0.1/cb', 'http://127.0.0.1/cb'],
    ['http://127.0.0.1:51234/cb', 'http://127.0.0.1/cb'],
    ['http://[::1]:1/', 'http://[::1]/'],
    ['http://localhost:65535?x=1', 'http://localhost?x=1'],
    ['http://localhost', 'http://localhost'],
    ['https://127.0.0.1/cb', undefined],
    ['http://user@127.0.0.1/cb', undefined],
    ['http://127.0.0.1@evil.example/cb', undefined],
    ['http://127.0.0.1:65536/cb', undefined],
    ['http://127.0.0.1.evil.example/cb', undefined],
    ['http://example.com/cb', undefined],
  ])('%s: %s', (uri, expected) => {
    expect(portlessLoopback(uri)).toBe(expected);
  });
});
