import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configDir, killAllCli } from '../server/support.js';
import { FORM_HEADERS, form, SECRETS } from '../support/fixtures.js';
import { type StoreUnderTest, storesUnderTest } from '../support/store-backends.js';
import { type Instance, startPairOn } from './instances.js';

/**
 * Two `gatehouse serve` processes behind one issuer on one shared store, PostgreSQL then Redis:
 * a signed request object pushed at one is refused at the other when pushed again with its `jti`.
 */

const BASE_URL = 'https://idp.request-objects.test';
const ISSUER = `${BASE_URL}/oauth/demo`;
const WEB = { client_id: 'web', client_secret: SECRETS.basic };

const dir = configDir();
afterAll(() => {
  killAllCli();
  dir.remove();
});

/** What the `web` client of validConfig() signs with its secret, with the `jti` it picks. */
function requestObject(jti: string) {
  return new SignJWT({
    response_type: 'code',
    client_id: WEB.client_id,
    redirect_uri: 'https://app.example.com/cb',
    scope: 'openid',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
    jti,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'oauth-authz-req+jwt' })
    .setIssuer(WEB.client_id)
    .setAudience(ISSUER)
    .setIssuedAt()
    .setNotBefore('0s')
    .setExpirationTime('1m')
    .sign(new TextEncoder().encode(WEB.client_secret));
}

async function push(instance: Instance, request: string) {
  const response = await instance.fetch('/oauth/demo/par', {
    method: 'POST',
    headers: FORM_HEADERS,
    body: form({ ...WEB, request }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe.each(await storesUnderTest('jar'))('two instances sharing one $name', ({ store }) => {
  describe.skipIf(!store)('with signed request objects', () => {
    const backend = store as StoreUnderTest;
    let a: Instance;
    let b: Instance;

    beforeAll(async () => {
      [a, b] = await startPairOn(dir, backend, BASE_URL, {
        'realms.0.request_object_signing_alg_values_supported': ['HS256'],
        'realms.0.clients.2.token_endpoint_auth_method': 'client_secret_post',
      });
    }, 60_000);

    afterAll(async () => {
      killAllCli();
      await backend.cleanUp();
    });

    it('refuse at B the request object A took, and take at B a new jti', async () => {
      const request = await requestObject(crypto.randomUUID());
      const taken = await push(a, request);
      expect(taken.status, JSON.stringify(taken.body)).toBe(201);

      expect(await push(b, request)).toEqual({
        status: 400,
        body: {
          error: 'invalid_request_object',
          error_description: 'the request object was used before',
        },
      });
      expect((await push(b, await requestObject(crypto.randomUUID()))).status).toBe(201);
    });
  });
});
