import { describe, expect, it } from 'vitest';
import { withState } from './end-session.js';

describe('withState', () => {
  it.each([
    ['https://app.example.com/out', undefined, 'https://app.example.com/out'],
    ['https://app.example.com/out', 'xyz', 'https://app.example.com/out?state=xyz'],
    ['https://app.example.com/out?a=1', 'xyz', 'https://app.example.com/out?a=1&state=xyz'],
    ['https://app.example.com/out?', 'xyz', 'https://app.example.com/out?state=xyz'],
    ['https://app.example.com/out?a=1&', 'xyz', 'https://app.example.com/out?a=1&state=xyz'],
    // The registered URI is kept byte for byte: no re-encoding of its own query.
    ['https://app.example.com/out?a=%20b+c', 'x', 'https://app.example.com/out?a=%20b+c&state=x'],
    [
      'https://app.example.com/out',
      'a b&c=<d>#e',
      'https://app.example.com/out?state=a%20b%26c%3D%3Cd%3E%23e',
    ],
  ])('%s with state %j → %s', (uri, state, expected) => {
    expect(withState(uri, state)).toBe(expected);
  });
});
