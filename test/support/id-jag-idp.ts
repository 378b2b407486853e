import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

export const ID_JAG_TYPE = 'oauth-id-jag+jwt';
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** The claims of an ID-JAG (or a plain RFC 7523 assertion without `client_id` and `resource`). */
export interface AssertionClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  client_id?: string;
  resource?: string;
  scope?: string;
  jti?: string;
  iat?: number;
  exp?: number;
  nbf?: number;
}

/**
 * An enterprise identity provider as the jwt-bearer grant sees it: an ES256 key, its public JWK
 * Set (served on a loopback port once `serve` is called), and assertions minted with jose.
 */
export class TestIdp {
  /** JWKS requests answered, to see what the realm cached. */
  jwksRequests = 0;
  #close: (() => Promise<void>) | undefined;

  private constructor(
    readonly issuer: string,
    readonly privateKey: CryptoKey,
    readonly publicJwk: JWK,
  ) {}

  static async create(issuer = 'https://idp.example.com', kid = 'idp-key-1'): Promise<TestIdp> {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
    return new TestIdp(issuer, privateKey, publicJwk);
  }

  get jwks(): { keys: JWK[] } {
    return { keys: [this.publicJwk] };
  }

  /** Serves the JWK Set on 127.0.0.1; resolves with its URL. */
  async serve(): Promise<string> {
    const server = createServer((_request, response) => {
      this.jwksRequests += 1;
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(this.jwks));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.#close = () => new Promise((resolve) => server.close(() => resolve()));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks`;
  }

  async close(): Promise<void> {
    await this.#close?.();
  }

  /**
   * An ID-JAG for `claims` (the issuer, a fresh jti and a five-minute lifetime from `now` unless
   * given), signed with the IdP's key or `key`; `header` is merged over `typ` and `kid`.
   */
  mint(
    claims: AssertionClaims,
    options: { now?: number; header?: Record<string, unknown>; key?: CryptoKey | Uint8Array } = {},
  ): Promise<string> {
    const iat = claims.iat ?? Math.floor((options.now ?? Date.now()) / 1000);
    const { alg = 'ES256', ...header } = {
      typ: ID_JAG_TYPE,
      kid: this.publicJwk.kid,
      ...options.header,
    } as Record<string, unknown>;
    return new SignJWT({
      jti: crypto.randomUUID(),
      iss: this.issuer,
      exp: iat + 300,
      ...claims,
      iat,
    })
      .setProtectedHeader({ ...header, alg: alg as string })
      .sign(options.key ?? this.privateKey);
  }
}
