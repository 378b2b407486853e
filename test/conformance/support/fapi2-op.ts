import { randomBytes } from 'node:crypto';
import { hashPassword, type ServerConfigInput } from '@gatehouse-oidc/server';
import { type CryptoKey, exportJWK, generateKeyPair, type JWK } from 'jose';
import {
  type CertificationOp,
  REDIRECT_URI,
  RP_ORIGIN,
  startCertificationOp,
  USER,
  USER_CLAIMS,
} from './op.js';

/**
 * The provider under test for the FAPI 2.0 Security Profile plan: the same standalone server as
 * the OpenID Connect plans, with one realm of `"profile": "fapi2"` and the two static clients the
 * suite's configuration names (`client` and `client2`), each with its own key pair for
 * private_key_jwt. The suite's second client redirects to a URI with a query
 * (AddRedirectUriQuerySuffix), registered as it is.
 */

export const FAPI2_REALM = 'fapi2';

/** A static client of the suite with its private key (client.jwks of the suite's config). */
export interface FapiClient {
  id: string;
  alg: 'ES256' | 'PS256' | 'EdDSA';
  privateKey: CryptoKey;
  publicJwk: JWK;
  redirectUri: string;
  scope: string;
}

export interface Fapi2Op extends CertificationOp {
  clients: { first: FapiClient; second: FapiClient };
  /** The user the tester signs in as. */
  sub: string;
}

const SCOPE = 'openid profile email address phone offline_access';
export const SUB = 'buffy-summers';

async function fapiClient(
  id: string,
  alg: FapiClient['alg'],
  redirectUri: string,
): Promise<FapiClient> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid: `${id}-key`, alg, use: 'sig' };
  return { id, alg, privateKey, publicJwk, redirectUri, scope: SCOPE };
}

/** A realm set up as docs/fapi2.md says, with the suite's two clients. */
async function fapi2Config(
  baseUrl: string,
  clients: readonly FapiClient[],
): Promise<ServerConfigInput> {
  return {
    base_url: baseUrl,
    cookie_secret: randomBytes(32).toString('base64url'),
    realms: [
      {
        name: FAPI2_REALM,
        profile: 'fapi2',
        signing_alg: 'PS256',
        error_codes: 'registered',
        scopes: SCOPE.split(' '),
        clients: clients.map((client) => ({
          client_id: client.id,
          client_name: `Conformance suite (${client.id})`,
          token_endpoint_auth_method: 'private_key_jwt',
          jwks: { keys: [client.publicJwk] },
          redirect_uris: [client.redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          scope: client.scope,
        })),
        users: [
          {
            sub: SUB,
            username: USER.username,
            password_hash: await hashPassword(USER.password, { N: 2 ** 14 }),
            claims: USER_CLAIMS,
          },
        ],
      },
    ],
  } as ServerConfigInput;
}

export async function startFapi2Op(): Promise<Fapi2Op> {
  const [first, second] = await Promise.all([
    // An RSA key first: the RS256 client assertion module needs one (it skips for others).
    fapiClient('fapi-client', 'PS256', REDIRECT_URI),
    fapiClient('fapi-client2', 'ES256', `${REDIRECT_URI}?dummy1=lorem&dummy2=ipsum`),
  ]);
  const op = await startCertificationOp(undefined, (baseUrl) =>
    fapi2Config(baseUrl, [first, second]),
  );
  return { ...op, clients: { first, second }, sub: SUB };
}

/** CreateBadRedirectUriByAppending: a URI at the relying party that nobody registered. */
export const BAD_REDIRECT_URI = `${RP_ORIGIN}/callback/bad`;
