import { Agent, request } from 'node:http';
import { S256_CHALLENGE } from '../integration/browser.js';
import { balancedInjector, type Instance } from '../multi-instance/instances.js';
import { aliceSignsIn, codeExchange, WEB_TOKEN_HEADERS } from '../server/web-sign-in.js';
import { BASE_URL } from './standalone.js';

/**
 * A bounded flood of anonymous authorization requests: no cookie, so each one starts an
 * interaction for a new browser, with `state` and `nonce` as long as the stored request allows.
 * Stops at `count` requests or after `seconds`, whichever comes first; loopback only.
 */
export interface FloodOptions {
  origin: string;
  count: number;
  seconds: number;
  connections: number;
}

export interface FloodResult {
  sent: number;
  /** Answers other than a 302 to the login page, by status. */
  unexpected: Map<number, number>;
}

/** `state` and `nonce` length: together with the rest just under the 4,096 stored characters. */
export const PARAMETER_LENGTH = 1_800;

export function authorizePath(serial: number): string {
  const filler = (name: string) =>
    `${name}-${serial}-`.padEnd(PARAMETER_LENGTH, 'abcdefghijklmnopqrstuvwxyz0123456789');
  return `/oauth/demo/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: 'web',
    redirect_uri: 'https://app.example.com/cb',
    scope: 'openid profile',
    state: filler('state'),
    nonce: filler('nonce'),
    code_challenge: S256_CHALLENGE,
    code_challenge_method: 'S256',
  })}`;
}

export async function flood({ origin, count, seconds, connections }: FloodOptions) {
  const target = new URL(origin);
  if (target.hostname !== '127.0.0.1') throw new Error(`flood loopback only, not ${origin}`);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const deadline = performance.now() + seconds * 1000;
  const result: FloodResult = { sent: 0, unexpected: new Map() };
  const one = (path: string) =>
    new Promise<void>((resolve, reject) => {
      request({ host: target.hostname, port: target.port, path, agent }, (response) => {
        const status = response.statusCode ?? 0;
        if (status !== 302 || !response.headers.location?.includes('/interaction/')) {
          result.unexpected.set(status, (result.unexpected.get(status) ?? 0) + 1);
        }
        response.resume().on('end', resolve).on('error', reject);
      })
        .on('error', reject)
        .end();
    });
  const worker = async () => {
    while (result.sent < count && performance.now() < deadline) {
      result.sent += 1;
      await one(authorizePath(result.sent));
    }
  };
  try {
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    agent.destroy();
  }
  return result;
}

/**
 * Alice signs in through the server's pages as `web` and exchanges her code: what a real user
 * does once a flood has passed. Resolves with the token endpoint's status.
 */
export async function aliceGetsTokens(server: Instance): Promise<number> {
  const { injector } = balancedInjector(() => server);
  const code = await aliceSignsIn(injector, BASE_URL);
  const response = await server.fetch('/oauth/demo/token', {
    method: 'POST',
    headers: WEB_TOKEN_HEADERS,
    body: codeExchange(code),
  });
  return response.status;
}
