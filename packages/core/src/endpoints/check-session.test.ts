import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BROWSER_STATE_COOKIE } from '../sessions/session.js';
import { sessionState } from '../sessions/session-state.js';
import {
  CHECK_SESSION_HEADERS,
  CHECK_SESSION_SCRIPT,
  checkSessionEndpoint,
} from './check-session.js';

const RP_ORIGIN = 'https://app.example.com';
const BROWSER_STATE = 'browser-state-value';

interface Reply {
  answer: unknown;
  targetOrigin: string;
}

/**
 * Runs the iframe's script as a browser would, with Node's WebCrypto, and returns a function that
 * posts one message to it and resolves with the reply.
 */
function iframe(options: { cookie?: string; crypto?: unknown } = {}) {
  const listeners: Array<(event: unknown) => void> = [];
  const window = {
    addEventListener: (type: string, listener: (event: unknown) => void) => {
      if (type === 'message') listeners.push(listener);
    },
  };
  const document = { cookie: options.cookie ?? `${BROWSER_STATE_COOKIE}=${BROWSER_STATE}` };
  new Function('window', 'document', 'crypto', CHECK_SESSION_SCRIPT)(
    window,
    document,
    options.crypto ?? globalThis.crypto,
  );
  expect(listeners).toHaveLength(1);
  return (data: unknown, origin = RP_ORIGIN, replies: Reply[] = []): Promise<Reply> =>
    new Promise((resolve) => {
      const source = {
        postMessage: (answer: unknown, targetOrigin: string) => {
          replies.push({ answer, targetOrigin });
          resolve({ answer, targetOrigin });
        },
      };
      listeners[0]?.({ data, origin, source });
    });
}

const message = (clientId: string, state: string) => `${clientId} ${state}`;
const stateFor = (browserState = BROWSER_STATE, redirectUri = `${RP_ORIGIN}/cb?x=1`) =>
  sessionState('web-app', redirectUri, browserState);

describe('the check_session_iframe script', () => {
  it('recognises the session_state that sessionState() computed, answering to the sender', async () => {
    const post = iframe();
    expect(await post(message('web-app', stateFor()))).toEqual({
      answer: 'unchanged',
      targetOrigin: RP_ORIGIN,
    });
  });

  it('finds the cookie among others', async () => {
    const post = iframe({ cookie: `a=1; ${BROWSER_STATE_COOKIE}=${BROWSER_STATE}; b=2` });
    expect((await post(message('web-app', stateFor())))?.answer).toBe('unchanged');
  });

  it.each([
    ['the browser state changed (another sign-in)', {}, stateFor('another-state')],
    ['the state was computed for another origin', {}, stateFor(BROWSER_STATE, 'https://x.test/')],
    ['the user signed out (no cookie)', { cookie: '' }, stateFor()],
    [
      'a cookie that only ends with the name',
      { cookie: `x${BROWSER_STATE_COOKIE}=${BROWSER_STATE}` },
      stateFor(),
    ],
  ])('answers "changed" when %s', async (_, options, state) => {
    expect((await iframe(options)(message('web-app', state)))?.answer).toBe('changed');
  });

  it('answers "changed" to another client or another sender origin', async () => {
    const post = iframe();
    expect((await post(message('other-app', stateFor())))?.answer).toBe('changed');
    expect((await post(message('web-app', stateFor()), 'https://evil.test'))?.answer).toBe(
      'changed',
    );
  });

  it('answers "changed" when the hash was tampered with', async () => {
    const [hash, salt] = stateFor().split('.');
    const flipped = `${hash?.startsWith('0') ? '1' : '0'}${hash?.slice(1)}.${salt}`;
    expect((await iframe()(message('web-app', flipped)))?.answer).toBe('changed');
  });

  it.each([
    ['no separator', 'web-app'],
    ['three parts', `web-app ${stateFor()} extra`],
    ['no salt', 'web-app abcdef'],
    ['an empty salt', 'web-app abcdef.'],
    ['an empty hash', 'web-app .salt'],
    ['an empty client_id', ` ${stateFor()}`],
    ['not a string', { clientId: 'web-app' }],
  ])('answers "error" to a message with %s', async (_, data) => {
    expect((await iframe()(data))?.answer).toBe('error');
  });

  it('answers "error" without WebCrypto (an insecure context)', async () => {
    expect((await iframe({ crypto: {} })(message('web-app', stateFor())))?.answer).toBe('error');
  });

  it('stays silent to an opaque origin, which it could not answer', async () => {
    const post = iframe();
    const replies: Reply[] = [];
    void post(message('web-app', stateFor()), 'null', replies);
    // A message from a real origin, sent after it, is answered: the first one never will be.
    await post(message('web-app', stateFor()));
    expect(replies).toEqual([]);
  });
});

describe('the check_session_iframe page', () => {
  it('allows exactly its own inline script, by hash', async () => {
    const response = await checkSessionEndpoint(
      { method: 'GET', path: '/', query: '', headers: {} },
      {} as never,
    );
    const scripts = [...(response.body ?? '').matchAll(/<script>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((match) => match[1])).toEqual([CHECK_SESSION_SCRIPT]);
    const hash = createHash('sha256').update(CHECK_SESSION_SCRIPT).digest('base64');
    expect(response.headers['content-security-policy']).toBe(
      `default-src 'none'; script-src 'sha256-${hash}'; base-uri 'none'; form-action 'none'`,
    );
  });

  it('may be framed by any relying party and is never cached', async () => {
    const response = await checkSessionEndpoint(
      { method: 'GET', path: '/', query: '', headers: {} },
      {} as never,
    );
    expect(response.status).toBe(200);
    expect(response.headers).toEqual(CHECK_SESSION_HEADERS);
    expect(response.headers['x-frame-options']).toBeUndefined();
    expect(response.headers['content-security-policy']).not.toContain('frame-ancestors');
    expect(response.headers['cache-control']).toBe('no-store');
  });
});
