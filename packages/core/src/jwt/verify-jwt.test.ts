import { base64url, generateKeyPair, type JWTVerifyOptions, jwtVerify, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { webCryptoVerifier } from '../keys/webcrypto-verifier.js';
import { verifyJwt } from './verify-jwt.js';

const NOW = 1_900_000_000;
const { privateKey, publicKey } = await generateKeyPair('ES256');
const rsa = await generateKeyPair('RS256');

const token = (
  header: Record<string, unknown>,
  claims: Record<string, unknown>,
  key = privateKey,
) => new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'JWT', ...header }).sign(key);

const good = { iss: 'client', sub: 'client', aud: 'https://as.example', exp: NOW + 60, jti: 'j' };
const options: JWTVerifyOptions & { algorithms: string[] } = {
  algorithms: ['ES256', 'PS256'],
  issuer: 'client',
  subject: 'client',
  audience: 'https://as.example',
  typ: 'JWT',
  requiredClaims: ['exp', 'jti'],
  currentDate: new Date(NOW * 1000),
  clockTolerance: 30,
};

/** What jose's jwtVerify gives, or the class and message of its error. */
const outcome = (verifying: Promise<{ payload: unknown }>) =>
  verifying.then(
    ({ payload }) => ({ payload }),
    (error: Error) => ({
      error: error.constructor.name,
      ...('claim' in error ? { claim: error.claim } : {}),
    }),
  );

describe('verifyJwt', () => {
  it('accepts and refuses exactly what jose’s jwtVerify does, with the same errors', async () => {
    const signed = await token({}, good);
    const [header, payload, signature] = signed.split('.');
    const cases = [
      signed,
      await token({}, { ...good, exp: NOW - 60 }),
      await token({}, { ...good, nbf: NOW + 600 }),
      await token({}, { ...good, aud: 'https://other.example' }),
      await token({}, { ...good, iss: 'mallory' }),
      await token({}, { ...good, sub: 'mallory' }),
      await token({}, { ...good, jti: undefined }),
      await token({}, { ...good, iat: 'yesterday' }),
      await token({ typ: 'at+jwt' }, good),
      await token({ typ: 'application/JWT' }, good),
      await token({ typ: undefined }, good),
      // Each token's claims are checked under its own typ, whatever the token before had.
      signed,
      await token({}, good, (await generateKeyPair('ES256')).privateKey),
      await token({ alg: 'RS256' }, good, rsa.privateKey),
      `${base64url.encode('{"alg":"none","typ":"JWT"}')}.${payload}.`,
      `${header}.${base64url.encode('{"iss":"client"')}.${signature}`,
      `${header}.${payload}.${signature?.slice(0, -4)}`,
      `${header}.${payload}`,
      `${base64url.encode('[]')}.${payload}.${signature}`,
      `${base64url.encode('{"typ":"JWT"}')}.${payload}.${signature}`,
      'not.a.jwt',
    ];
    for (const jwt of cases) {
      const ours = await outcome(verifyJwt(webCryptoVerifier(), jwt, publicKey, options));
      expect(ours, jwt).toEqual(await outcome(jwtVerify(jwt, publicKey, options)));
    }
  });

  it('refuses any crit header, as for the realm’s own tokens', async () => {
    const signed = await token({ crit: ['b64'], b64: true }, good);
    await expect(verifyJwt(webCryptoVerifier(), signed, publicKey, options)).rejects.toThrow(
      /crit/,
    );
  });

  it('asks a key resolver for the key, with the header it read', async () => {
    const seen: unknown[] = [];
    const resolver = async (protectedHeader: unknown) => {
      seen.push(protectedHeader);
      return publicKey;
    };
    const signed = await token({ kid: 'k1' }, good);
    await expect(verifyJwt(webCryptoVerifier(), signed, resolver, options)).resolves.toMatchObject({
      payload: good,
      protectedHeader: { alg: 'ES256', kid: 'k1' },
    });
    expect(seen).toEqual([{ alg: 'ES256', typ: 'JWT', kid: 'k1' }]);
  });
});
