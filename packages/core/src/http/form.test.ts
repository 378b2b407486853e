import { afterEach, describe, expect, it } from 'vitest';
import { oauthErrorOf } from '../../test-support/oauth-errors.js';
import { decodeUtf8, paramsFromPairs, parseUrlEncoded } from './form.js';

describe('parseUrlEncoded', () => {
  it.each([
    ['a=1&b=2', { a: '1', b: '2' }],
    ['scope=openid+profile', { scope: 'openid profile' }],
    ['scope=openid%20profile', { scope: 'openid profile' }],
    ['plus=%2B&amp=%26&eq=a%3Db', { plus: '+', amp: '&', eq: 'a=b' }],
    ['name=J%C3%BCrgen', { name: 'Jürgen' }],
    [
      'redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb%3Fx%3D1',
      { redirect_uri: 'https://app.example.com/cb?x=1' },
    ],
    ['a%5Fb=c', { a_b: 'c' }],
    ['value=a=b', { value: 'a=b' }],
    ['&&a=1&', { a: '1' }],
  ])('decodes %s', (input, expected) => {
    const params = parseUrlEncoded(input);
    expect(Object.fromEntries(params.names().map((name) => [name, params.get(name)]))).toEqual(
      expected,
    );
  });

  it('treats empty values and valueless names as absent', () => {
    const params = parseUrlEncoded('state=&nonce&scope=openid');
    expect(params.get('state')).toBeUndefined();
    expect(params.has('state')).toBe(false);
    expect(params.get('nonce')).toBeUndefined();
    expect(params.names()).toEqual(['scope']);
  });

  it.each(['scope=openid&scope=profile', 'scope=openid&scope=', 'a=1&%61=2', 'a=1&a'])(
    'rejects the repeated parameter in %s',
    (input) => {
      const error = oauthErrorOf(() => parseUrlEncoded(input));
      expect(error.code).toBe('invalid_request');
      expect(error.status).toBe(400);
      expect(error.description).toBe('a parameter is repeated');
    },
  );

  it('never names the repeated parameter: the description echoes nothing of the request', () => {
    const name = `<script>${'x'.repeat(50)}\u0000`;
    const error = oauthErrorOf(() =>
      paramsFromPairs([
        [name, '1'],
        [name, '2'],
      ]),
    );
    expect(error.description).toBe('a parameter is repeated');
  });

  it('keeps the first value of a repeated parameter and lists its name when asked to', () => {
    const params = parseUrlEncoded('state=a&scope=x&state=b&state=c', { recordRepeats: true });
    expect(params.get('state')).toBe('a');
    expect([...params.repeated]).toEqual(['state']);
    expect([...parseUrlEncoded('state=a').repeated]).toEqual([]);
  });

  it.each(['a=%', 'a=%2', 'a=%zz', '%=1', 'a=%E0%A4%A'])(
    'rejects the malformed percent-encoding %s',
    (input) => {
      const error = oauthErrorOf(() => parseUrlEncoded(input));
      expect([error.code, error.description]).toEqual([
        'invalid_request',
        'malformed percent-encoding',
      ]);
    },
  );

  it.each(['a=%FF', 'a=%C3%28', 'a=%ED%A0%80'])(
    'rejects the percent-encoded invalid UTF-8 %s',
    (input) => {
      expect(oauthErrorOf(() => parseUrlEncoded(input)).code).toBe('invalid_request');
    },
  );

  it('accepts 64 parameters and rejects the 65th', () => {
    const pairs = (count: number) => Array.from({ length: count }, (_, i) => `p${i}=v`).join('&');
    expect(parseUrlEncoded(pairs(64)).names()).toHaveLength(64);
    const error = oauthErrorOf(() => parseUrlEncoded(pairs(65)));
    expect([error.code, error.description]).toEqual(['invalid_request', 'too many parameters']);
  });
});

describe('parameter names that are Object.prototype members', () => {
  const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort();
  afterEach(() => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeNames);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('are ordinary parameters and pollute nothing', () => {
    const params = parseUrlEncoded(
      '__proto__=%7B%22polluted%22%3A1%7D&constructor=c&hasOwnProperty=h&toString=t&__proto__%5Bpolluted%5D=1',
    );
    expect(params.get('__proto__')).toBe('{"polluted":1}');
    expect(params.get('__proto__[polluted]')).toBe('1');
    expect(params.get('constructor')).toBe('c');
    expect(params.get('hasOwnProperty')).toBe('h');
    expect(params.get('toString')).toBe('t');
    expect(params.names()).toEqual([
      '__proto__',
      'constructor',
      'hasOwnProperty',
      'toString',
      '__proto__[polluted]',
    ]);
  });

  it('are absent when not sent', () => {
    const params = parseUrlEncoded('a=1');
    for (const name of ['__proto__', 'constructor', 'hasOwnProperty', 'toString', 'valueOf']) {
      expect(params.get(name)).toBeUndefined();
      expect(params.has(name)).toBe(false);
    }
  });

  it('are detected when repeated', () => {
    expect(oauthErrorOf(() => parseUrlEncoded('__proto__=1&__proto__=2')).description).toBe(
      'a parameter is repeated',
    );
  });
});

describe('decodeUtf8', () => {
  it('decodes valid UTF-8', () => {
    expect(decodeUtf8(new TextEncoder().encode('a=J%C3%BCrgen&b=ü'))).toBe('a=J%C3%BCrgen&b=ü');
  });

  it.each([
    ['a lone continuation byte', [0x61, 0x3d, 0x80]],
    ['a truncated sequence', [0x61, 0x3d, 0xc3]],
    ['an overlong encoding', [0x61, 0x3d, 0xc0, 0xaf]],
    ['a Latin-1 byte', [0x61, 0x3d, 0xfc]],
  ])('rejects %s', (_, bytes) => {
    const error = oauthErrorOf(() => decodeUtf8(new Uint8Array(bytes)));
    expect([error.code, error.description]).toEqual([
      'invalid_request',
      'the request is not valid UTF-8',
    ]);
  });
});
