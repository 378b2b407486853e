import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S256_CHALLENGE } from '../integration/browser.js';
import { freePort } from '../support/ports.js';
import { csrfTokenOf } from './pages-support.js';
import {
  ADMIN_TOKEN,
  CliProcess,
  configDir,
  killAllCli,
  validConfig,
  withChanges,
} from './support.js';

/**
 * The login and admin throttles of a real server process over loopback. The server trusts one
 * proxy, so X-Forwarded-For stands for the many client addresses a test cannot have.
 */
const dir = configDir();
let cli: CliProcess;
let origin: string;

beforeAll(async () => {
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  const config = withChanges(validConfig(), { base_url: origin, port, trust_proxy: true });
  cli = new CliProcess(['serve', '--config', dir.write('abuse.json', config)]);
  await cli.origin();
});
afterAll(() => {
  killAllCli();
  dir.remove();
});

/** A browser's login form: the page's URL, its cookies and CSRF token. */
interface LoginForm {
  url: string;
  cookie: string;
  csrfToken: string;
}

const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((setCookie) => setCookie.split(';', 1)[0])
    .join('; ');

/** A fresh browser starts an authorization request and gets to the login form. */
async function openLoginForm(): Promise<LoginForm> {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'web',
    redirect_uri: 'https://app.example.com/cb',
    scope: 'openid profile',
    nonce: 'n-0123456789',
    code_challenge: S256_CHALLENGE,
    code_challenge_method: 'S256',
  });
  const authorize = await fetch(`${origin}/oauth/demo/authorize?${query}`, { redirect: 'manual' });
  const url = authorize.headers.get('location');
  if (authorize.status !== 302 || !url) throw new Error(`no login redirect: ${authorize.status}`);
  const authorizeCookies = cookiesOf(authorize);
  const page = await fetch(url, { headers: { cookie: authorizeCookies } });
  const body = await page.text();
  const cookie = [authorizeCookies, cookiesOf(page)].filter(Boolean).join('; ');
  return { url, cookie, csrfToken: csrfTokenOf(body) };
}

/** Posts the form from `address`; resolves with the status. */
async function postLogin(
  form: LoginForm,
  address: string,
  username: string,
  password: string,
): Promise<number> {
  const response = await fetch(form.url, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: form.cookie,
      'x-forwarded-for': address,
    },
    body: new URLSearchParams({ csrf_token: form.csrfToken, username, password }),
  });
  await response.arrayBuffer();
  return response.status;
}

/** What one flood may send at the most, and for how long. */
const FLOOD_POSTS = 20_000;
const FLOOD_SECONDS = 40;

/** A flood post: answered (with its status) or still in flight. */
interface FloodPost {
  status?: number;
}

/**
 * Wrong passwords from 20 addresses of `network` (`198.51.100`...) that have each failed once
 * already: 80 posts at once, each sent again as soon as it is answered, until `stop()` (or the
 * bounds above).
 * `inFlight` are the posts sent and not yet answered; `seen(status)` resolves once a post is
 * answered with it.
 */
async function flood(form: LoginForm, network: string) {
  const addresses = Array.from({ length: 20 }, (_, host) => `${network}.${host}`);
  const firstFailures = addresses.map((address) => postLogin(form, address, 'nobody', 'wrong'));
  expect(await Promise.all(firstFailures)).toEqual(addresses.map(() => 401));
  const inFlight = new Set<FloodPost>();
  const waitingFor = new Map<number, () => void>();
  const seen = (status: number) =>
    new Promise<void>((resolve, reject) => {
      waitingFor.set(status, resolve);
      setTimeout(
        () => reject(new Error(`no ${status} within ${FLOOD_SECONDS} s of flood`)),
        FLOOD_SECONDS * 1000,
      ).unref();
    });
  let stopped = false;
  let sent = 0;
  // Bounded on its own, should a test never call stop(): at most FLOOD_POSTS, for FLOOD_SECONDS.
  const deadline = Date.now() + FLOOD_SECONDS * 1000;
  // Four posts at a time from each address.
  const workers = [...addresses, ...addresses, ...addresses, ...addresses].map(async (address) => {
    while (!stopped && sent < FLOOD_POSTS && Date.now() < deadline) {
      sent += 1;
      const post: FloodPost = {};
      inFlight.add(post);
      post.status = await postLogin(form, address, `flood-${sent}`, 'wrong');
      inFlight.delete(post);
      waitingFor.get(post.status)?.();
    }
  });
  return {
    inFlight,
    seen,
    stop: async () => {
      stopped = true;
      await Promise.all(workers);
    },
  };
}

describe('login during a flood of wrong passwords from other addresses', () => {
  // Three fresh addresses, each against a flood of its own: every flood has most of its
  // addresses' failure allowance left when the login is sent.
  const logins = [
    { address: '203.0.113.7', floodNetwork: '198.51.100' },
    { address: '203.0.113.8', floodNetwork: '198.51.101' },
    { address: '2001:db8:77::1', floodNetwork: '198.51.102' },
  ];

  it.each(logins)(
    'lets a correct login from $address through, ahead of the waiting checks',
    async ({ address, floodNetwork }) => {
      const { inFlight, seen, stop } = await flood(await openLoginForm(), floodNetwork);
      try {
        // A 503 answers a post that found the 16 waiting places for addresses that have failed
        // taken: the flood keeps them so.
        await seen(503);
        const form = await openLoginForm();
        const sentBefore = [...inFlight];
        expect(await postLogin(form, address, 'alice', 'alice-password')).toBe(303);
        const answeredAfter = sentBefore.filter((post) => post.status === undefined);
        await stop();
        // Wrong passwords posted before the login and checked (401) after it answered: the login
        // went ahead of the checks that were waiting. 0.4 ran those first, in arrival order, or
        // answered the login 503 while the queue was full. Measured by order, not by time: a
        // busy machine changes how many the login overtakes, not whether.
        expect(answeredAfter.filter((post) => post.status === 401).length).toBeGreaterThan(0);
      } finally {
        await stop();
      }
    },
    60_000,
  );
});

describe('admin API throttle', () => {
  const rotate = (address: string, token: string) =>
    fetch(`${origin}/admin/realms/demo/keys/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address },
    });

  it('answers 429 with Retry-After to wrong tokens after 10 failures from one address, never to the right one', async () => {
    const guess = (i: number) => `guess-${i}-0123456789abcdef0123456789`;
    for (let i = 0; i < 10; i += 1) {
      expect((await rotate('192.0.2.50', guess(i))).status).toBe(401);
    }
    expect((await rotate('192.0.2.50', ADMIN_TOKEN)).status).toBe(204);
    const refused = await rotate('192.0.2.50', guess(10));
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(890);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(900);
    expect(await refused.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: 'too many failed admin authentications from this address',
    });
    // Another address is not affected.
    expect((await rotate('192.0.2.51', guess(11))).status).toBe(401);
  });

  it('counts an IPv6 client by its /64', async () => {
    for (let i = 1; i <= 10; i += 1) {
      expect((await rotate(`2001:db8:0:9::${i}`, 'wrong')).status).toBe(401);
    }
    expect((await rotate('2001:db8:0:9:ffff::1', 'wrong')).status).toBe(429);
    expect((await rotate('2001:db8:0:a::1', 'wrong')).status).toBe(401);
  });
});
