import type { Server } from '@gatehouse-oidc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORM_HEADERS, form } from '../support/fixtures.js';
import { JWT_BEARER, TestIdp } from '../support/id-jag-idp.js';
import { type StoreUnderTest, storesUnderTest } from '../support/store-backends.js';
import { inProcessPairOn } from './instances.js';

/**
 * An ID-JAG is accepted once across instances: two standalone servers on one shared store (the
 * jti is recorded there, with a TTL until the assertion expires), on PostgreSQL and on Redis.
 */

const BASE_URL = 'http://127.0.0.1:3000';
const ISSUER = `${BASE_URL}/oauth/demo`;
const AGENT_SECRET = 'agent-secret-0123456789abcdef';

const instances = (store: StoreUnderTest, idp: TestIdp) =>
  inProcessPairOn(
    store,
    BASE_URL,
    { trusted_issuers: [{ issuer: idp.issuer, jwks: idp.jwks, profile: 'id-jag' }] },
    {
      client_id: 'agent',
      client_secret: AGENT_SECRET,
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: [JWT_BEARER],
      scope: 'api:read',
    },
  );

const exchange = (at: Server, assertion: string) =>
  at.app.inject({
    method: 'POST',
    url: '/oauth/demo/token',
    headers: FORM_HEADERS,
    payload: form({
      grant_type: JWT_BEARER,
      assertion,
      client_id: 'agent',
      client_secret: AGENT_SECRET,
    }),
  });

describe.each(await storesUnderTest('jwt_bearer'))('on $name', ({ store }) => {
  describe.skipIf(!store)('two instances, one store', () => {
    let idp: TestIdp;
    let a: Server;
    let b: Server;
    beforeAll(async () => {
      idp = await TestIdp.create();
      [a, b] = await instances(store as StoreUnderTest, idp);
    }, 60_000);
    afterAll(async () => {
      await a?.app.close();
      await b?.app.close();
      await store?.cleanUp();
    });

    it('an ID-JAG accepted at one instance is refused at the other', async () => {
      const assertion = await idp.mint({
        sub: 'alice',
        aud: ISSUER,
        client_id: 'agent',
        resource: 'https://api.example.com',
        scope: 'api:read',
      });
      const first = await exchange(a, assertion);
      expect(first.statusCode, first.body).toBe(200);
      const replayed = await exchange(b, assertion);
      expect(replayed.statusCode).toBe(400);
      expect(replayed.json()).toMatchObject({
        error: 'invalid_grant',
        error_description: 'assertion has already been used',
      });
    });

    it('of concurrent presentations at both instances, exactly one succeeds', async () => {
      const assertion = await idp.mint({
        sub: 'alice',
        aud: ISSUER,
        client_id: 'agent',
        resource: 'https://api.example.com',
        scope: 'api:read',
      });
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => exchange(i % 2 ? a : b, assertion)),
      );
      expect(answers.filter((answer) => answer.statusCode === 200)).toHaveLength(1);
    });
  });
});
