import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuthorization, form, SECRETS } from '../support/fixtures.js';
import { type StoreUnderTest, storesUnderTest } from '../support/store-backends.js';
import {
  ALL_WORKING,
  type Issued,
  LifecycleWorld,
  lifeRealm,
  type Verdict,
} from './lifecycle-world.js';

/**
 * The token lifecycle as a model (docs/sessions-and-grants.md, "How a token ends"): every way a
 * token ends, against every place a token is judged. Each row signs alice in to web afresh
 * (through the pages at A, the code redeemed at B) beside a service token and a token web
 * exchanged hers for (RFC 8693, of her grant), ends something at A,
 * then judges everything at B: a second instance on the same store must see every ending at
 * once. What a row leaves out of its verdict still works.
 */

interface Ending {
  /** What ends (or must not end) the tokens. */
  name: string;
  /** Done at A. Resolves with the tokens to judge when the ending replaced them. */
  end(world: LifecycleWorld, issued: Issued): Promise<Issued | undefined>;
  /** What stops working; everything else must still work. */
  stops: readonly (keyof Verdict)[];
  /**
   * It changes the realm's configuration, which reaches the other instances within 5 seconds
   * (docs/standalone-server.md): B judges once that has passed. Other endings hold at once.
   */
  reconfigures?: true;
}

/** How long a realm written through one instance may take to reach the others, and a second. */
const CONFIG_PROPAGATION_SECONDS = 6;

/** A token exchanged from the access token belongs to its grant: it ends with it. */
const USER_TOKENS = ['introspection', 'userinfo', 'refresh', 'exchanged'] as const;

const ENDINGS: readonly Ending[] = [
  { name: 'nothing', end: async () => undefined, stops: [] },
  {
    name: 'the code replayed by its own client',
    end: async (world, { code }) => {
      expect((await world.exchange(world.a, code)).statusCode).toBe(400);
      return undefined;
    },
    stops: USER_TOKENS,
  },
  {
    name: 'another client presenting the used code (a public client, no secret)',
    end: async (world, { code }) => {
      expect((await world.exchange(world.a, code, 'spa')).statusCode).toBe(400);
      return undefined;
    },
    stops: [],
  },
  {
    name: 'another client presenting an unused code, which its own client then redeems',
    end: async (world, issued) => {
      const code = (await world.silentCode(issued.browser, world.a)) ?? '';
      expect((await world.exchange(world.a, code, 'spa')).statusCode).toBe(400);
      expect((await world.exchange(world.b, code)).statusCode).toBe(200);
      return undefined;
    },
    stops: [],
  },
  {
    name: 'a rotated refresh token presented again',
    end: async (world, issued) => {
      const rotated = await world.refresh(world.a, issued.refreshToken);
      expect(rotated.statusCode).toBe(200);
      expect((await world.refresh(world.a, issued.refreshToken)).statusCode).toBe(400);
      const { access_token, refresh_token } = rotated.json();
      return { ...issued, accessToken: access_token, refreshToken: refresh_token };
    },
    stops: USER_TOKENS,
  },
  {
    name: 'the refresh token revoked (RFC 7009)',
    end: async (world, issued) => {
      await revoke(world, issued.refreshToken);
      return undefined;
    },
    stops: USER_TOKENS,
  },
  {
    name: 'the access token revoked (RFC 7009)',
    end: async (world, issued) => {
      await revoke(world, issued.accessToken);
      return undefined;
    },
    stops: ['introspection', 'userinfo'],
  },
  {
    name: 'RP-initiated logout with the ID token as hint',
    end: async (world, issued) => {
      const hint = new URLSearchParams({ id_token_hint: issued.idToken });
      const answer = await issued.browser.at(world.a).get(`/oauth/life/logout?${hint}`);
      expect(answer.statusCode, answer.body).toBeLessThan(400);
      return undefined;
    },
    stops: [...USER_TOKENS, 'tokenEndpoint'],
  },
  {
    name: 'the session ended (admin API, one session)',
    end: async (world) => {
      const listed = await world.admin(world.a, 'GET', '/users/alice/sessions');
      for (const { sid } of listed.json().sessions as { sid: string }[])
        expect((await world.admin(world.a, 'DELETE', `/sessions/${sid}`)).statusCode).toBe(204);
      return undefined;
    },
    stops: [...USER_TOKENS, 'tokenEndpoint'],
  },
  {
    name: 'every session of the user ended (admin API, log out everywhere)',
    end: async (world) => {
      expect((await world.admin(world.a, 'DELETE', '/users/alice/sessions')).statusCode).toBe(204);
      return undefined;
    },
    stops: [...USER_TOKENS, 'tokenEndpoint'],
  },
  {
    name: "the user's grant to the client revoked (admin API)",
    end: async (world) => {
      const revoked = await world.admin(world.a, 'DELETE', '/users/alice/grants/web');
      expect(revoked.statusCode).toBe(204);
      return undefined;
    },
    stops: [...USER_TOKENS, 'adminApi', 'tokenEndpoint'],
  },
  {
    name: 'the client deleted',
    end: async (world) => {
      expect((await world.admin(world.a, 'DELETE', '/clients/web')).statusCode).toBe(204);
      return undefined;
    },
    stops: [...USER_TOKENS, 'adminApi', 'tokenEndpoint'],
    reconfigures: true,
  },
  {
    name: 'the client deleted and created again',
    end: async (world) => {
      const [web] = lifeRealm().clients as object[];
      expect((await world.admin(world.a, 'DELETE', '/clients/web')).statusCode).toBe(204);
      expect((await world.admin(world.a, 'PUT', '/clients/web', web)).statusCode).toBe(201);
      return undefined;
    },
    stops: [...USER_TOKENS, 'adminApi', 'tokenEndpoint'],
    reconfigures: true,
  },
  {
    name: 'the service client deleted and created again',
    end: async (world) => {
      const service = (lifeRealm().clients as { client_id: string }[])[2];
      expect((await world.admin(world.a, 'DELETE', '/clients/service')).statusCode).toBe(204);
      expect((await world.admin(world.a, 'PUT', '/clients/service', service)).statusCode).toBe(201);
      return undefined;
    },
    stops: ['serviceToken'],
    reconfigures: true,
  },
  {
    name: "the client's secret rotated, tokens kept",
    end: async (world) => {
      await rotateSecret(world, 'web', {});
      await rotateSecret(world, 'service', {});
      return undefined;
    },
    stops: [],
    reconfigures: true,
  },
  {
    name: "the client's secret rotated with revoke_tokens (a leaked secret)",
    end: async (world) => {
      await rotateSecret(world, 'web', { revoke_tokens: true });
      return undefined;
    },
    stops: USER_TOKENS,
    reconfigures: true,
  },
  {
    name: "the service's secret rotated with revoke_tokens",
    end: async (world) => {
      await rotateSecret(world, 'service', { revoke_tokens: true });
      return undefined;
    },
    stops: ['serviceToken'],
    reconfigures: true,
  },
  {
    name: 'the user removed from the realm',
    end: async (world) => {
      const realm = lifeRealm();
      realm.users = (realm.users as { sub: string }[]).filter(({ sub }) => sub !== 'alice');
      await world.writeRealm(realm);
      return undefined;
    },
    stops: [...USER_TOKENS, 'tokenEndpoint'],
    reconfigures: true,
  },
  {
    name: 'the signing key retired by a rotation',
    end: async (world) => {
      await world.a.provider.rotateKeys('life');
      return undefined;
    },
    stops: [],
  },
  {
    name: 'the realm deleted',
    end: async (world) => {
      expect((await world.admin(world.a, 'DELETE', '')).statusCode).toBe(204);
      return undefined;
    },
    stops: [...USER_TOKENS, 'adminApi', 'tokenEndpoint', 'serviceToken'],
    reconfigures: true,
  },
];

async function revoke(world: LifecycleWorld, token: string): Promise<void> {
  const revoked = await world.post(world.a, 'revoke', form({ token }), {
    authorization: basicAuthorization('web', SECRETS.basic),
  });
  expect(revoked.statusCode).toBe(200);
}

async function rotateSecret(world: LifecycleWorld, clientId: string, body: object): Promise<void> {
  const answer = await world.admin(world.a, 'POST', `/clients/${clientId}/secret`, body);
  expect(answer.statusCode, answer.body).toBe(200);
}

const expected = (stops: readonly (keyof Verdict)[]): Verdict =>
  Object.fromEntries(
    Object.keys(ALL_WORKING).map((place) => [place, !stops.includes(place as keyof Verdict)]),
  ) as unknown as Verdict;

const backends: Array<{ name: string; store: StoreUnderTest | undefined; memory?: true }> = [
  { name: 'memory', store: undefined, memory: true },
  ...(await storesUnderTest('lifecycle')),
];

describe.each(backends)('the token lifecycle on $name', ({ store, memory }) => {
  describe.skipIf(!store && !memory)('two instances, one store', () => {
    let world: LifecycleWorld;
    beforeAll(async () => {
      world = await LifecycleWorld.start(store);
    }, 60_000);
    afterAll(async () => {
      await world?.close();
      await store?.cleanUp();
    });

    it.each(ENDINGS)('$name', async ({ end, stops, reconfigures }) => {
      // Every row starts from the realm as written: an earlier row may have removed a part.
      await world.writeRealm(lifeRealm());
      world.clock.advance(CONFIG_PROPAGATION_SECONDS);
      const issued = await world.issue();
      // A moment passes between the tokens and what ends them, as it always does off a fake clock.
      world.clock.advance(1);
      const judged = (await end(world, issued)) ?? issued;
      if (reconfigures) world.clock.advance(CONFIG_PROPAGATION_SECONDS);
      expect(await world.judge(judged, world.b)).toEqual(expected(stops));
    });
  });
});
