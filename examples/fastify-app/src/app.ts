import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import {
  createProvider,
  type InteractionDetails,
  InteractionError,
  type InteractionPrompt,
  type InteractionResult,
  type Provider,
} from '@gatehouse/core';
import { gatehouse } from '@gatehouse/fastify';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { accounts, checkPassword, displayName } from './users.js';

const REALM = 'demo';

/** The app with Gatehouse mounted at /auth; `origin` is the public URL browsers reach it at. */
export async function createApp({ origin }: { origin: string }) {
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

  const app = Fastify();
  app.addHook('onClose', () => provider.close());
  // Encapsulated: Gatehouse's routes keep their own body parser, the app's get the one below.
  await app.register(gatehouse, { provider, prefix: '/auth' });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 4096 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  app.get('/', async (_request, reply) => {
    const discovery = `/auth/oauth/${REALM}/.well-known/openid-configuration`;
    const body = `<p>Gatehouse: <a href="${discovery}">${discovery}</a>`;
    return page(reply, 200, 'Example Fastify app', body);
  });

  app.get('/login', async (request, reply) => {
    const details = await waiting(provider, query(request), 'login');
    if (!details) return expired(reply);
    const token = csrfToken(request, reply, secure, details.id);
    return page(reply, 200, 'Sign in', loginForm(details, token));
  });
  app.post('/login', async (request, reply) => {
    const details = await posted(provider, request, reply, 'login');
    if (!details) return reply;
    if (field(request, 'action') === 'cancel') {
      return finish(provider, reply, details.id, { error: 'access_denied' });
    }
    const username = field(request, 'username');
    const user = await checkPassword(username, field(request, 'password'));
    if (!user) {
      const token = csrfToken(request, reply, secure, details.id);
      const body = loginForm(details, token, username, 'Wrong username or password.');
      return page(reply, 401, 'Sign in', body);
    }
    return finish(provider, reply, details.id, { login: { sub: user.sub, amr: ['pwd'] } });
  });

  app.get('/consent', async (request, reply) => {
    const details = await waiting(provider, query(request), 'consent');
    if (!details) return expired(reply);
    const token = csrfToken(request, reply, secure, details.id);
    return page(reply, 200, 'Allow access?', consentForm(details, token));
  });
  app.post('/consent', async (request, reply) => {
    const details = await posted(provider, request, reply, 'consent');
    if (!details) return reply;
    const result: InteractionResult =
      field(request, 'decision') === 'allow'
        ? { consent: { scopes: details.scopes } }
        : { error: 'access_denied' };
    return finish(provider, reply, details.id, result);
  });

  return app;
}

/** Listens on `port` (0 picks a free one). */
export async function start(options: { origin: string; port: number; host: string }) {
  const app = await createApp(options);
  await app.listen({ port: options.port, host: options.host });
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}

/** The interaction `id` if it still waits for this prompt; undefined once finished or expired. */
async function waiting(provider: Provider, id: unknown, prompt: InteractionPrompt) {
  const details =
    typeof id === 'string' ? await provider.interactions.details(REALM, id) : undefined;
  return details?.prompt === prompt ? details : undefined;
}

/** A posted form's interaction, after its CSRF token; answers the request itself otherwise. */
async function posted(
  provider: Provider,
  request: FastifyRequest,
  reply: FastifyReply,
  prompt: InteractionPrompt,
) {
  const id = field(request, 'interaction');
  if (!validCsrf(request, id))
    return void page(reply, 403, 'Forbidden', '<p>Please try again.</p>');
  return (await waiting(provider, id, prompt)) ?? void expired(reply);
}

/** Hands the result to Gatehouse and sends the browser on: 303, so the form is not re-sent. */
async function finish(
  provider: Provider,
  reply: FastifyReply,
  id: string,
  result: InteractionResult,
) {
  try {
    return reply.redirect(await provider.interactions.finish(REALM, id, result), 303);
  } catch (error) {
    if (!(error instanceof InteractionError)) throw error;
    return expired(reply); // finished meanwhile, in another tab
  }
}

const query = (request: FastifyRequest) => (request.query as Record<string, unknown>).interaction;
const field = (request: FastifyRequest, name: string): string => {
  const value: unknown = (request.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

// CSRF: a form's token is an HMAC of this browser's random cookie and the interaction id.
const csrfKey = randomBytes(32);
const BROWSER_COOKIE = 'app_browser';
const sign = (browser: string, interaction: string) =>
  createHmac('sha256', csrfKey).update(`${browser} ${interaction}`).digest('base64url');

function csrfToken(
  request: FastifyRequest,
  reply: FastifyReply,
  secure: boolean,
  interaction: string,
): string {
  let browser = readCookie(request, BROWSER_COOKIE);
  if (!browser) {
    browser = randomBytes(32).toString('base64url');
    const attributes = `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
    reply.header('set-cookie', `${BROWSER_COOKIE}=${browser}; ${attributes}`);
  }
  return sign(browser, interaction);
}

function validCsrf(request: FastifyRequest, interaction: string): boolean {
  const browser = readCookie(request, BROWSER_COOKIE);
  if (!browser) return false;
  const given = Buffer.from(field(request, 'csrf'));
  const expected = Buffer.from(sign(browser, interaction));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const pair of request.headers.cookie?.split(';') ?? []) {
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

function page(reply: FastifyReply, status: number, title: string, body: string): FastifyReply {
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    })
    .send(`<!doctype html><html lang="en"><meta charset="utf-8"><title>${esc(title)}</title>
<h1>${esc(title)}</h1>${body}</html>`);
}

const expired = (reply: FastifyReply) =>
  page(reply, 400, 'Sign-in expired', '<p>Go back to the application and try again.</p>');
