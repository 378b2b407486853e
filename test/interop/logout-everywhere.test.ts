import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ClientInput } from '@gatehouse-oidc/core';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeInChromium } from '../support/chromium.js';
import { signInAtProvider } from './support/chromium-user.js';
import { type InteropProvider, PROVIDER_KINDS } from './support/providers.js';

/**
 * Logout reaches every application, end to end: two relying parties built on openid-client sign
 * alice in through one provider session in Chromium; RP-initiated logout at the first sends the
 * second (and the first) a logout token over the back channel, which the receiver verifies with
 * jose against the provider's JWKS, and the logout page loads the second one's front-channel
 * page with `iss` and `sid` before the browser returns to the first.
 */

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** Everything the relying parties' server saw besides the sign-ins. */
interface Seen {
  logoutTokens: Array<{ client: string; token: string }>;
  frontchannel: Array<{ client: string; query: URLSearchParams }>;
}

/** The relying parties: `mail` and `calendar`, each an openid-client app under its own path. */
class RelyingParties {
  readonly seen: Seen = { logoutTokens: [], frontchannel: [] };
  readonly idTokens = new Map<string, string>();
  readonly #configs = new Map<string, oidc.Configuration>();
  readonly #logins = new Map<string, { verifier: string; client: string }>();
  #server: Server | undefined;
  origin = '';

  async listen(): Promise<void> {
    const server = createServer((request, response) => {
      this.#handle(request).then(
        ({ status, location, body }) => {
          response.writeHead(status, location ? { location } : { 'cache-control': 'no-store' });
          response.end(body ?? '');
        },
        (error: unknown) => {
          response.writeHead(500);
          response.end(
            `${String(error)} ${JSON.stringify((error as { cause?: unknown }).cause ?? '')}`,
          );
        },
      );
    });
    this.#server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /** What the provider must know each relying party as. */
  client(name: string): ClientInput {
    return {
      client_id: name,
      client_secret: `${name}-secret-0123456789abcdef`,
      // openid-client's default with a secret.
      token_endpoint_auth_method: 'client_secret_post',
      redirect_uris: [`${this.origin}/${name}/callback`],
      post_logout_redirect_uris: [`${this.origin}/${name}/signed-out`],
      scope: 'openid profile',
      backchannel_logout_uri: `${this.origin}/${name}/backchannel-logout`,
      backchannel_logout_session_required: true,
      frontchannel_logout_uri: `${this.origin}/${name}/frontchannel-logout`,
      frontchannel_logout_session_required: true,
    };
  }

  async discover(issuer: string, names: string[]): Promise<void> {
    for (const name of names) {
      const config = await oidc.discovery(
        new URL(issuer),
        name,
        `${name}-secret-0123456789abcdef`,
        undefined,
        { execute: [oidc.allowInsecureRequests] },
      );
      this.#configs.set(name, config);
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) =>
      this.#server ? this.#server.close(() => resolve()) : resolve(),
    );
  }

  async #handle(
    request: IncomingMessage,
  ): Promise<{ status: number; location?: string; body?: string }> {
    const url = new URL(request.url ?? '/', this.origin);
    const [, name = '', action = ''] = url.pathname.split('/');
    const config = this.#configs.get(name);
    if (!config) return { status: 404 };
    switch (action) {
      case 'login': {
        const verifier = oidc.randomPKCECodeVerifier();
        const state = oidc.randomState();
        this.#logins.set(state, { verifier, client: name });
        const to = oidc.buildAuthorizationUrl(config, {
          redirect_uri: `${this.origin}/${name}/callback`,
          scope: 'openid profile',
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
        });
        return { status: 302, location: to.href };
      }
      case 'callback': {
        const state = url.searchParams.get('state') ?? '';
        const login = this.#logins.get(state);
        this.#logins.delete(state);
        const tokens = await oidc.authorizationCodeGrant(config, url, {
          pkceCodeVerifier: login?.verifier,
          expectedState: state,
        });
        this.idTokens.set(name, tokens.id_token ?? '');
        return { status: 200, body: `${name}: signed in` };
      }
      case 'logout': {
        const to = oidc.buildEndSessionUrl(config, {
          id_token_hint: this.idTokens.get(name) ?? '',
          post_logout_redirect_uri: `${this.origin}/${name}/signed-out`,
        });
        return { status: 302, location: to.href };
      }
      case 'signed-out':
        return { status: 200, body: `${name}: signed out` };
      case 'backchannel-logout': {
        const body = new URLSearchParams(await text(request));
        this.seen.logoutTokens.push({ client: name, token: body.get('logout_token') ?? '' });
        return { status: 200 };
      }
      case 'frontchannel-logout':
        this.seen.frontchannel.push({ client: name, query: url.searchParams });
        return { status: 200, body: 'ok' };
      default:
        return { status: 404 };
    }
  }
}

async function text(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body;
}

/** A relying party's checks of a logout token (Back-Channel Logout 1.0 §2.6), with jose. */
async function verifyLogoutToken(token: string, issuer: string, jwksUri: string, clientId: string) {
  const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(jwksUri)), {
    issuer,
    audience: clientId,
    typ: 'logout+jwt',
    requiredClaims: ['iat', 'exp', 'jti', 'events'],
  });
  expect(payload.events).toEqual({ [EVENT]: {} });
  expect(payload).not.toHaveProperty('nonce');
  return payload;
}

describeInChromium('logout everywhere with openid-client', (browser) => {
  describe.each(PROVIDER_KINDS)('against $name', (kind) => {
    const rps = new RelyingParties();
    let provider: InteropProvider;

    beforeAll(async () => {
      await rps.listen();
      provider = await kind.start([rps.client('mail'), rps.client('calendar')]);
      await rps.discover(provider.issuer, ['mail', 'calendar']);
    });
    afterAll(async () => {
      await provider?.close();
      await rps.close();
    });

    it('RP-initiated logout at one app logs alice out of the other, by both channels', async () => {
      const context = await browser().newContext();
      context.setDefaultTimeout(10_000);
      const page = await context.newPage();
      for (const name of ['mail', 'calendar']) {
        await page.goto(`${rps.origin}/${name}/login`);
        await signInAtProvider(page, (url) => url.pathname === `/${name}/callback`);
        expect(await page.locator('body').textContent()).toBe(`${name}: signed in`);
      }
      await page.goto(`${rps.origin}/mail/logout`);
      await page.waitForURL(`${rps.origin}/mail/signed-out`);

      const metadata = (await (
        await fetch(`${provider.issuer}/.well-known/openid-configuration`)
      ).json()) as { jwks_uri: string };
      await expect.poll(() => rps.seen.logoutTokens.length).toBe(2);
      const idSid = (name: string) =>
        JSON.parse(
          Buffer.from((rps.idTokens.get(name) ?? '').split('.')[1] ?? '', 'base64url').toString(),
        ).sid as string;
      for (const { client, token } of rps.seen.logoutTokens) {
        const claims = await verifyLogoutToken(token, provider.issuer, metadata.jwks_uri, client);
        expect(claims).toMatchObject({ iss: provider.issuer, aud: client, sub: 'alice' });
        expect(claims.sid).toBe(idSid(client));
      }
      expect(rps.seen.logoutTokens.map(({ client }) => client).sort()).toEqual([
        'calendar',
        'mail',
      ]);
      // Both apps share the one provider session, so one sid.
      expect(idSid('mail')).toBe(idSid('calendar'));

      // The logout page loaded each app's front-channel page with iss and sid.
      const framed = rps.seen.frontchannel.map(({ client, query }) => ({
        client,
        query: Object.fromEntries(query),
      }));
      expect(framed.sort((a, b) => a.client.localeCompare(b.client))).toEqual([
        { client: 'calendar', query: { iss: provider.issuer, sid: idSid('calendar') } },
        { client: 'mail', query: { iss: provider.issuer, sid: idSid('mail') } },
      ]);

      // Signed out at the provider: the other app's next sign-in asks for the password again.
      await page.goto(`${rps.origin}/calendar/login`);
      await page.locator('input[name=password]').waitFor();
      await context.close();
    }, 60_000);
  });
});
