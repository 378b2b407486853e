import { describe, expect, it } from 'vitest';
import { isJwtShaped, presentedToken } from './presented-token.js';

const read = (headers: Record<string, string>) => presentedToken(new Headers(headers));
const PROOF = 'eyJh.eyJi.c2ln';

describe('presentedToken', () => {
  it('reads Bearer and DPoP credentials, schemes in any case', () => {
    expect(read({ authorization: 'Bearer abc.def-_~+/=' })).toEqual({
      scheme: 'Bearer',
      token: 'abc.def-_~+/=',
    });
    expect(read({ authorization: 'bearer  abc' })).toEqual({ scheme: 'Bearer', token: 'abc' });
    expect(read({ authorization: 'DPoP abc', dpop: PROOF })).toEqual({
      scheme: 'DPoP',
      token: 'abc',
      proof: PROOF,
    });
  });

  it('finds no token without the header or under another scheme', () => {
    expect(read({})).toBeUndefined();
    expect(read({ authorization: 'Basic YTpi' })).toBeUndefined();
  });

  it('refuses malformed credentials and a DPoP token without exactly one proof', () => {
    const cases: [Record<string, string>, string][] = [
      [{ authorization: 'Bearer' }, 'invalid_request'],
      [{ authorization: 'Bearer a b' }, 'invalid_request'],
      [{ authorization: 'Bearer a, Bearer b' }, 'invalid_request'],
      [{ authorization: 'Bearer a"b' }, 'invalid_request'],
      [{ authorization: 'DPoP abc' }, 'invalid_dpop_proof'],
      [{ authorization: 'DPoP abc', dpop: `${PROOF}, ${PROOF}` }, 'invalid_dpop_proof'],
      [{ authorization: 'DPoP abc', dpop: 'not-a-jwt' }, 'invalid_dpop_proof'],
    ];
    for (const [headers, code] of cases) {
      expect(() => read(headers), JSON.stringify(headers)).toThrow(
        expect.objectContaining({ code }),
      );
    }
  });

  it('tells JWTs from opaque tokens by their shape', () => {
    expect(isJwtShaped('eyJh.eyJi.c2ln')).toBe(true);
    expect(isJwtShaped('opaque-token_0123')).toBe(false);
    expect(isJwtShaped('a.b')).toBe(false);
  });
});
