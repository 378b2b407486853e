import { randomBytes } from 'node:crypto';
import type { ClientInput } from '@gatehouse-oidc/core';
import { buildServer, hashPassword, parseServerConfig } from '@gatehouse-oidc/server';
import { start as startExpressApp } from '../../../examples/express-app/src/app.js';
import { freePort } from '../../support/ports.js';

/**
 * The two ways a relying party meets Gatehouse: the standalone server (its built-in login and
 * consent pages), and an Express app embedding `@gatehouse-oidc/express` with its own pages
 * (examples/express-app). Both serve realm `demo` with user alice, over http on a loopback port
 * of its own, so the relying parties' origins (other ports) are other origins.
 */

export const ALICE = { username: 'alice', password: 'alice-demo-password' } as const;

/** Alice's claims, as the example app's user table has them. */
export const ALICE_CLAIMS = {
  name: 'Alice Liddell',
  given_name: 'Alice',
  family_name: 'Liddell',
  email: 'alice@example.com',
  email_verified: true,
} as const;

export interface InteropProvider {
  issuer: string;
  origin: string;
  close(): Promise<void>;
}

export interface ProviderKind {
  name: string;
  start(clients: ClientInput[]): Promise<InteropProvider>;
}

async function startStandalone(clients: ClientInput[]): Promise<InteropProvider> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const config = parseServerConfig({
    base_url: origin,
    cookie_secret: randomBytes(32).toString('base64url'),
    realms: [
      {
        name: 'demo',
        scopes: ['openid', 'profile', 'email'],
        clients,
        users: [
          {
            sub: 'alice',
            username: ALICE.username,
            // The cheapest cost the server accepts, so sign-ins stay quick.
            password_hash: await hashPassword(ALICE.password, { N: 2 ** 14 }),
            claims: ALICE_CLAIMS,
          },
        ],
      },
    ],
  });
  const server = buildServer(config);
  await server.app.listen({ port, host: '127.0.0.1' });
  return { issuer: `${origin}/oauth/demo`, origin, close: () => server.app.close() };
}

async function startEmbedded(clients: ClientInput[]): Promise<InteropProvider> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const app = await startExpressApp({ origin, port, host: '127.0.0.1', realm: { clients } });
  return { issuer: `${origin}/auth/oauth/demo`, origin, close: () => app.close() };
}

export const PROVIDER_KINDS: readonly ProviderKind[] = [
  { name: 'the standalone server', start: startStandalone },
  { name: 'an Express app embedding @gatehouse-oidc/express', start: startEmbedded },
];
