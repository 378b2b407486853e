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
import { gatehouse } from '@gatehouse/express';
import express, { type Request, type Response } from 'express';
import { accounts, checkPassword, displayName } from './users.js';

const REALM = 'demo';

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

  const app = express();
  app.use('/auth', gatehouse(provider)); // before any body parser: Gatehouse reads its own bodies
  const form = express.urlencoded({ extended: false, limit: '4kb' });

  app.get('/', (_req, res) => {
    const discovery = `/auth/oauth/${REALM}/.well-known/openid-configuration`;
    page(res, 200, 'Example Express app', `<p>Gatehouse: <a href="${discovery}">${discovery}</a>`);
  });

  app.get('/login', async (req, res) => {
    const details = await waiting(provider, req.query.interaction, 'login');
    if (!details) return expired(res);
    page(res, 200, 'Sign in', loginForm(details, csrfToken(req, res, secure, details.id)));
  });
  app.post('/login', form, async (req, res) => {
    const details = await posted(provider, req, res, 'login');
    if (!details) return;
    if (field(req, 'action') === 'cancel') {
      return finish(provider, res, details.id, { error: 'access_denied' });
    }
    const username = field(req, 'username');
    const user = await checkPassword(username, field(req, 'password'));
    if (!user) {
      const token = csrfToken(req, res, secure, details.id);
      const body = loginForm(details, token, username, 'Wrong username or password.');
      return page(res, 401, 'Sign in', body);
    }
    await finish(provider, res, details.id, { login: { sub: user.sub, amr: ['pwd'] } });
  });

  app.get('/consent', async (req, res) => {
    const details = await waiting(provider, req.query.interaction, 'consent');
    if (!details) return expired(res);
    page(res, 200, 'Allow access?', consentForm(details, csrfToken(req, res, secure, details.id)));
  });
  app.post('/consent', form, async (req, res) => {
    const details = await posted(provider, req, res, 'consent');
    if (!details) return;
    const result: InteractionResult =
      field(req, 'decision') === 'allow'
        ? { consent: { scopes: details.scopes } }
        : { error: 'access_denied' };
    await finish(provider, res, details.id, result);
  });

  return { app, provider };
}

/** Listens on `port` (0 picks a free one). */
export async function start(options: { origin: string; port: number; host: string }) {
  const { app, provider } = createApp(options);
  const server = app.listen(options.port, options.host);
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
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

/** A posted form's interaction, after its CSRF token; answers the request itself otherwise. */
async function posted(provider: Provider, req: Request, res: Response, prompt: InteractionPrompt) {
  const id = field(req, 'interaction');
  if (!validCsrf(req, id)) return void page(res, 403, 'Forbidden', '<p>Please try again.</p>');
  return (await waiting(provider, id, prompt)) ?? void expired(res);
}

/** Hands the result to Gatehouse and sends the browser on: 303, so the form is not re-sent. */
async function finish(provider: Provider, res: Response, id: string, result: InteractionResult) {
  try {
    res.redirect(303, await provider.interactions.finish(REALM, id, result));
  } catch (error) {
    if (!(error instanceof InteractionError)) throw error;
    expired(res); // finished meanwhile, in another tab
  }
}

const field = (req: Request, name: string): string => {
  const value: unknown = req.body?.[name];
  return typeof value === 'string' ? value : '';
};

// CSRF: a form's token is an HMAC of this browser's random cookie and the interaction id.
const csrfKey = randomBytes(32);
const BROWSER_COOKIE = 'app_browser';
const sign = (browser: string, interaction: string) =>
  createHmac('sha256', csrfKey).update(`${browser} ${interaction}`).digest('base64url');

function csrfToken(req: Request, res: Response, secure: boolean, interaction: string): string {
  let browser = readCookie(req, BROWSER_COOKIE);
  if (!browser) {
    browser = randomBytes(32).toString('base64url');
    res.cookie(BROWSER_COOKIE, browser, { httpOnly: true, sameSite: 'lax', secure, path: '/' });
  }
  return sign(browser, interaction);
}

function validCsrf(req: Request, interaction: string): boolean {
  const browser = readCookie(req, BROWSER_COOKIE);
  if (!browser) return false;
  const given = Buffer.from(field(req, 'csrf'));
  const expected = Buffer.from(sign(browser, interaction));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function readCookie(req: Request, name: string): string | undefined {
  for (const pair of req.headers.cookie?.split(';') ?? []) {
    const [key, value] = pair.trim().split('=');
    if (key === name) return value;
  }
  return undefined;
}

const esc = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const hidden = (details: InteractionDetails, csrf: string) =>
  `<input type="hidden" name="interaction" value="${esc(details.id)}">
<input type="hidden" name="csrf" value="${esc(csrf)}">`;

const loginForm = (details: InteractionDetails, csrf: string, username = '', error = '') => `
<p>to continue to ${esc(details.client.name ?? details.client.id)}</p>
${error && `<p role="alert">${esc(error)}</p>`}
<form method="post" action="/login">${hidden(details, csrf)}
<label>Username <input name="username" value="${esc(username || (details.loginHint ?? ''))}"></label>
<label>Password <input name="password" type="password"></label>
<button>Sign in</button> <button name="action" value="cancel">Cancel</button></form>`;

const consentForm = (details: InteractionDetails, csrf: string) => `
<p>${esc(details.client.name ?? details.client.id)} asks ${esc(displayName(details.sub ?? ''))} for:</p>
<ul>${details.scopes.map((scope) => `<li>${esc(scope)}</li>`).join('')}</ul>
<form method="post" action="/consent">${hidden(details, csrf)}
<button name="decision" value="allow">Allow</button> <button name="decision" value="deny">Deny</button></form>`;

function page(res: Response, status: number, title: string, body: string): void {
  res.status(status).type('html').set({
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
  });
  res.send(`<!doctype html><html lang="en"><meta charset="utf-8"><title>${esc(title)}</title>
<h1>${esc(title)}</h1>${body}</html>`);
}

const expired = (res: Response) =>
  page(res, 400, 'Sign-in expired', '<p>Go back to the application and try again.</p>');
