import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import {
  createProvider,
  type InteractionDetails,
  InteractionError,
  type InteractionPrompt,
  type InteractionResult,
  type Provider,
} from '@gatehouse/core';
import { gatehouse } from '@gatehouse/hono';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { html } from 'hono/html';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { accounts, checkPassword, displayName } from './users.js';

const REALM = 'demo';
type Form = Record<string, unknown>;

/** The app with Gatehouse mounted at /auth; `origin` is the public URL browsers reach it at. */
export function createApp({ origin }: { origin: string }) {
  const provider = createProvider({
    baseUrl: `${origin}/auth`,
    accounts,
    // Where Gatehouse sends the browser when it needs the user: /login or /consent below.
    interactionUrl: ({ prompt, id }) => `${origin}/${prompt}?interaction=${encodeURIComponent(id)}`,
    realms: [
      {
        name: REALM,
        scopes: ['openid', 'profile', 'email'],
        clients: [
          {
            client_id: 'demo-web',
            client_name: 'Demo web app',
            client_secret: 'demo-web-secret-change-me',
            redirect_uris: ['http://127.0.0.1:8080/callback'],
            grant_types: ['authorization_code', 'refresh_token'],
            scope: 'openid profile email',
          },
        ],
      },
    ],
  });
  const secure = origin.startsWith('https:');

  const app = new Hono();
  app.route('/auth', gatehouse(provider));
  const form = bodyLimit({ maxSize: 4096 });

  app.get('/', (c) => {
    const discovery = `/auth/oauth/${REALM}/.well-known/openid-configuration`;
    const body = html`<p>Gatehouse: <a href="${discovery}">${discovery}</a>`;
    return page(c, 200, 'Example Hono app', body);
  });

  app.get('/login', async (c) => {
    const details = await waiting(provider, c.req.query('interaction'), 'login');
    if (!details) return expired(c);
    return page(c, 200, 'Sign in', loginForm(details, csrfToken(c, secure, details.id)));
  });
  app.post('/login', form, async (c) => {
    const body = await c.req.parseBody();
    const details = await posted(provider, c, body, 'login');
    if (details instanceof Response) return details;
    if (body.action === 'cancel') {
      return finish(provider, c, details.id, { error: 'access_denied' });
    }
    const username = field(body, 'username');
    const user = await checkPassword(username, field(body, 'password'));
    if (!user) {
      const token = csrfToken(c, secure, details.id);
      const retry = loginForm(details, token, username, 'Wrong username or password.');
      return page(c, 401, 'Sign in', retry);
    }
    return finish(provider, c, details.id, { login: { sub: user.sub, amr: ['pwd'] } });
  });

  app.get('/consent', async (c) => {
    const details = await waiting(provider, c.req.query('interaction'), 'consent');
    if (!details) return expired(c);
    return page(c, 200, 'Allow access?', consentForm(details, csrfToken(c, secure, details.id)));
  });
  app.post('/consent', form, async (c) => {
    const body = await c.req.parseBody();
    const details = await posted(provider, c, body, 'consent');
    if (details instanceof Response) return details;
    const result: InteractionResult =
      body.decision === 'allow'
        ? { consent: { scopes: details.scopes } }
        : { error: 'access_denied' };
    return finish(provider, c, details.id, result);
  });

  return { app, provider };
}

/** Listens on `port` (0 picks a free one). */
export async function start(options: { origin: string; port: number; host: string }) {
  const { app, provider } = createApp(options);
  const server = serve({ fetch: app.fetch, port: options.port, hostname: options.host });
  if (!server.listening) await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      if ('closeAllConnections' in server) server.closeAllConnections();
      await closed;
      await provider.close();
    },
  };
}

/** The interaction `id` if it still waits for this prompt; undefined once finished or expired. */
async function waiting(provider: Provider, id: unknown, prompt: InteractionPrompt) {
  const details =
    typeof id === 'string' ? await provider.interactions.details(REALM, id) : undefined;
  return details?.prompt === prompt ? details : undefined;
}

/** A posted form's interaction, after its CSRF token; otherwise the page to answer with. */
async function posted(provider: Provider, c: Context, body: Form, prompt: InteractionPrompt) {
  const id = field(body, 'interaction');
  if (!validCsrf(c, body, id)) return page(c, 403, 'Forbidden', html`<p>Please try again.</p>`);
  return (await waiting(provider, id, prompt)) ?? expired(c);
}

/** Hands the result to Gatehouse and sends the browser on: 303, so the form is not re-sent. */
async function finish(provider: Provider, c: Context, id: string, result: InteractionResult) {
  try {
    return c.redirect(await provider.interactions.finish(REALM, id, result), 303);
  } catch (error) {
    if (!(error instanceof InteractionError)) throw error;
    return expired(c); // finished meanwhile, in another tab
  }
}

const field = (body: Form, name: string): string => {
  const value = body[name];
  return typeof value === 'string' ? value : '';
};

// CSRF: a form's token is an HMAC of this browser's random cookie and the interaction id.
const csrfKey = randomBytes(32);
const BROWSER_COOKIE = 'app_browser';
const sign = (browser: string, interaction: string) =>
  createHmac('sha256', csrfKey).update(`${browser} ${interaction}`).digest('base64url');

function csrfToken(c: Context, secure: boolean, interaction: string): string {
  let browser = getCookie(c, BROWSER_COOKIE);
  if (!browser) {
    browser = randomBytes(32).toString('base64url');
    setCookie(c, BROWSER_COOKIE, browser, { httpOnly: true, sameSite: 'Lax', secure, path: '/' });
  }
  return sign(browser, interaction);
}

function validCsrf(c: Context, body: Form, interaction: string): boolean {
  const browser = getCookie(c, BROWSER_COOKIE);
  if (!browser) return false;
  const given = Buffer.from(field(body, 'csrf'));
  const expected = Buffer.from(sign(browser, interaction));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// hono/html escapes every interpolated value.
const hidden = (details: InteractionDetails, csrf: string) =>
  html`<input type="hidden" name="interaction" value="${details.id}">
<input type="hidden" name="csrf" value="${csrf}">`;

const loginForm = (details: InteractionDetails, csrf: string, username = '', error = '') => html`
<p>to continue to ${details.client.name ?? details.client.id}</p>
${error && html`<p role="alert">${error}</p>`}
<form method="post" action="/login">${hidden(details, csrf)}
<label>Username <input name="username" value="${username || (details.loginHint ?? '')}"></label>
<label>Password <input name="password" type="password"></label>
<button>Sign in</button> <button name="action" value="cancel">Cancel</button></form>`;

const consentForm = (details: InteractionDetails, csrf: string) => html`
<p>${details.client.name ?? details.client.id} asks ${displayName(details.sub ?? '')} for:</p>
<ul>${details.scopes.map((scope) => html`<li>${scope}</li>`)}</ul>
<form method="post" action="/consent">${hidden(details, csrf)}
<button name="decision" value="allow">Allow</button> <button name="decision" value="deny">Deny</button></form>`;

function page(
  c: Context,
  status: ContentfulStatusCode,
  title: string,
  body: ReturnType<typeof html>,
) {
  c.header('cache-control', 'no-store');
  c.header(
    'content-security-policy',
    "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
  );
  c.header('x-frame-options', 'DENY');
  c.header('referrer-policy', 'no-referrer');
  return c.html(
    html`<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title>
<h1>${title}</h1>${body}</html>`,
    status,
  );
}

const expired = (c: Context) =>
  page(c, 400, 'Sign-in expired', html`<p>Go back to the application and try again.</p>`);
