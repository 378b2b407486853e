import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  type JSONWebKeySet,
  jwtVerify,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, configDir, killAllCli, validConfig, withChanges } from '../server/support.js';
import {
  aliceSignsIn,
  codeExchange,
  refreshRequest,
  WEB_TOKEN_HEADERS,
} from '../server/web-sign-in.js';
import { FORM_HEADERS, form, SECRETS } from '../support/fixtures.js';
import { type StoreUnderTest, storesUnderTest } from '../support/store-backends.js';
import {
  type Answer,
  answer,
  balancedInjector,
  type Instance,
  migratedConfigFile,
  roundRobin,
  startInstances,
  stopInstance,
} from './instances.js';

/**
 * Three `gatehouse serve` processes on different ports, one issuer (`base_url`) and one shared
 * store, first PostgreSQL, then Redis: what runs behind a load balancer. Every request names
 * the instance it goes to, so each test says which instance does what.
 */

const BASE_URL = 'https://idp.multi-instance.test';
const ISSUER = `${BASE_URL}/oauth/demo`;
const CIBA = 'urn:openid:params:grant-type:ciba';
const CONCURRENT = 50;

const CLIENT_CREDENTIALS = form({
  grant_type: 'client_credentials',
  client_id: 'service',
  client_secret: SECRETS.post,
});

const dir = configDir();
afterAll(() => {
  killAllCli();
  dir.remove();
});

/** The authenticator's end of the CIBA webhook: answers 204 and remembers what it was sent. */
async function startWebhook() {
  const pushed: string[] = [];
  const server: HttpServer = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      pushed.push(JSON.parse(body).auth_req_id);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/push`,
    pushed,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

const tokenRequest = (instance: Instance, body: string, headers: Record<string, string>) =>
  answer(instance.fetch('/oauth/demo/token', { method: 'POST', headers, body }));

const machineToken = (instance: Instance) =>
  tokenRequest(instance, CLIENT_CREDENTIALS, FORM_HEADERS);

const redeem = (instance: Instance, code: string) =>
  tokenRequest(instance, codeExchange(code), WEB_TOKEN_HEADERS);

async function jwksOf(instance: Instance): Promise<JSONWebKeySet> {
  return (await answer(instance.fetch('/oauth/demo/jwks'))).body as unknown as JSONWebKeySet;
}

const kidOf = (token: unknown) => decodeProtectedHeader(String(token)).kid;

/** The statuses and error codes of many answers, counted: `{ '200': 1, '400 invalid_grant': 49 }`. */
function tally(answers: readonly Answer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, body } of answers) {
    const key = body.error === undefined ? String(status) : `${status} ${body.error}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

describe.each(await storesUnderTest('multi'))('three instances sharing one $name', ({ store }) => {
  describe.skipIf(!store)('behind one issuer', () => {
    const backend = store as StoreUnderTest;
    let webhook: Awaited<ReturnType<typeof startWebhook>>;
    let instances: Instance[];
    let a: Instance;
    let b: Instance;
    let c: Instance;

    /** Alice signs in through the pages, each request going where `route` sends it. */
    async function signIn(route: () => Instance) {
      const { injector, served } = balancedInjector(route);
      const code = await aliceSignsIn(injector, BASE_URL);
      return { code, served: new Set(served.map((instance) => instance.name)) };
    }

    /** A sign-in at A whose code B redeems: web's tokens. */
    async function webTokens(): Promise<Record<string, unknown>> {
      const { code } = await signIn(() => a);
      const tokens = await redeem(b, code);
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      return tokens.body;
    }

    beforeAll(async () => {
      webhook = await startWebhook();
      // The schema exists before any instance starts, as a deploy would run it.
      const { file, stdout } = await migratedConfigFile(
        dir,
        `${backend.name}.json`,
        withChanges(validConfig(), {
          base_url: BASE_URL,
          // Shared, so a form one instance rendered is accepted by the others.
          cookie_secret: 'multi-instance-cookie-secret-0123456789',
          ...backend.settings(),
          'realms.0.ciba': { interval: 1, authenticator: { webhook_url: webhook.url } },
          'realms.0.clients.2.grant_types': ['authorization_code', 'refresh_token', CIBA],
          'realms.0.clients.2.skip_consent': true,
        }),
      );
      expect(stdout).toMatch(
        backend.name === 'PostgreSQL'
          ? /^PostgreSQL at [^ ]+: created table "multi_[0-9a-f]+_records" and its indexes\n$/
          : /^nothing to migrate: the Redis store needs no schema/,
      );
      instances = await startInstances(file, BASE_URL, ['A', 'B', 'C']);
      [a, b, c] = instances as [Instance, Instance, Instance];
    }, 60_000);

    afterAll(async () => {
      killAllCli();
      await webhook?.close();
      await backend.cleanUp();
    });

    it('make one signing key between them, and verify each other’s tokens', async () => {
      // First use on all three at once: they agree on one key through the store.
      const tokens = await Promise.all(instances.map(machineToken));
      for (const token of tokens) expect(token.status, JSON.stringify(token.body)).toBe(200);
      const kids = new Set(tokens.map((token) => kidOf(token.body.access_token)));
      expect(kids.size).toBe(1);
      for (const verifier of instances) {
        const keys = createLocalJWKSet(await jwksOf(verifier));
        for (const token of tokens) {
          const { payload } = await jwtVerify(String(token.body.access_token), keys, {
            issuer: ISSUER,
          });
          expect(payload.client_id).toBe('service');
        }
      }
    });

    it('redeem at B a code A issued, and serve userinfo at C for the token B issued', async () => {
      const { code, served } = await signIn(() => a);
      expect(served).toEqual(new Set(['A']));
      const tokens = await redeem(b, code);
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      const { payload } = await jwtVerify(
        String(tokens.body.id_token),
        createLocalJWKSet(await jwksOf(a)),
        { issuer: ISSUER, audience: 'web' },
      );
      expect(payload.sub).toBe('alice');

      const userinfo = await answer(
        c.fetch('/oauth/demo/userinfo', {
          headers: { authorization: `Bearer ${tokens.body.access_token}` },
        }),
      );
      expect(userinfo).toMatchObject({ status: 200, body: { sub: 'alice', name: 'Alice' } });
      // A replay at A is recognised: the code is used up for every instance.
      expect(tally([await redeem(a, code)])).toEqual({ '400 invalid_grant': 1 });
    });

    it(`let exactly one of ${CONCURRENT} concurrent redemptions of one code succeed`, async () => {
      // The sign-in itself is spread over the three: interaction, forms and session are shared.
      const { code, served } = await signIn(roundRobin(instances));
      expect(served).toEqual(new Set(['A', 'B', 'C']));
      const next = roundRobin(instances);
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, () => redeem(next(), code)),
      );
      expect(tally(answers)).toEqual({ '200': 1, '400 invalid_grant': CONCURRENT - 1 });
    });

    it(`rotate a refresh token exactly once under ${CONCURRENT} concurrent uses`, async () => {
      const { refresh_token: refreshToken } = await webTokens();
      const next = roundRobin(instances);
      const answers = await Promise.all(
        Array.from({ length: CONCURRENT }, () =>
          tokenRequest(next(), refreshRequest(String(refreshToken)), WEB_TOKEN_HEADERS),
        ),
      );
      expect(tally(answers)).toEqual({ '200': 1, '400 invalid_grant': CONCURRENT - 1 });
      const rotated = answers.find((candidate) => candidate.status === 200);
      expect(rotated?.body.refresh_token).toEqual(expect.any(String));
      expect(rotated?.body.refresh_token).not.toBe(refreshToken);
    });

    it('show a CIBA request started at B and approved at A to polls at C and B', async () => {
      const { id_token: idTokenHint } = await webTokens();
      const started = await answer(
        b.fetch('/oauth/demo/bc-authorize', {
          method: 'POST',
          headers: WEB_TOKEN_HEADERS,
          body: form({ id_token_hint: String(idTokenHint), binding_message: 'Order 4711' }),
        }),
      );
      expect(started.status, JSON.stringify(started.body)).toBe(200);
      expect(started.body.interval).toBe(1);
      const authReqId = String(started.body.auth_req_id);
      const poll = (instance: Instance) =>
        tokenRequest(
          instance,
          form({ grant_type: CIBA, auth_req_id: authReqId }),
          WEB_TOKEN_HEADERS,
        );
      // Polls `interval` (one second) apart, as the client must.
      const waitInterval = () => new Promise((resolve) => setTimeout(resolve, 1_050));

      await waitInterval();
      expect(tally([await poll(c)])).toEqual({ '400 authorization_pending': 1 });
      const approval = await a.fetch(`/admin/realms/demo/ciba/${authReqId}/approve`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(approval.status).toBe(204);
      await waitInterval();
      const tokens = await poll(b);
      expect(tokens.status, JSON.stringify(tokens.body)).toBe(200);
      expect(decodeJwt(String(tokens.body.id_token))).toMatchObject({ sub: 'alice', aud: 'web' });
      expect(webhook.pushed).toContain(authReqId);
    });

    it('publish at B a key rotated at A, and sign with it at B from then on', async () => {
      const signingKids = async (instance: Instance) =>
        (await jwksOf(instance)).keys.filter((key) => key.alg === 'ES256').map((key) => key.kid);
      const before = await signingKids(b);
      expect(before).toHaveLength(1);
      const rotation = await a.fetch('/admin/realms/demo/keys/rotate', {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(rotation.status).toBe(204);

      // B's JWKS reads the store afresh: the new key, and the old one until its tokens expire.
      const after = await signingKids(b);
      expect(after).toHaveLength(2);
      expect(after).toEqual(expect.arrayContaining(before));
      const [rotated] = after.filter((kid) => !before.includes(kid));
      expect(kidOf((await machineToken(a)).body.access_token)).toBe(rotated);
      // Having read the key list, B signs with the newest key too.
      expect(kidOf((await machineToken(b)).body.access_token)).toBe(rotated);
    });

    it('stop on SIGTERM with exit status 0, having reported no error', async () => {
      const statuses = await Promise.all(instances.map(stopInstance));
      expect(statuses).toEqual([0, 0, 0]);
      // The replays above are logged as events on purpose; any other [gatehouse] line is an error.
      for (const instance of instances)
        expect(instance.cli.stderr).not.toMatch(/^\[gatehouse\] (?!event reuse_detected:)/m);
    });
  });
});
