import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { InteractionPrompt, InteractionResult, Provider } from '@gatehouse-oidc/core';
// The demo realm, the user table, the forms' CSRF tokens and the pages are the same in every
// example app: see examples/shared/src. This file is the Hono part: routes and answers.
import {
  checkPassword,
  consentPage,
  createDemoProvider,
  csrfToken,
  type DemoAppOptions,
  DISCOVERY_PATH,
  EXPIRED_PAGE,
  FORBIDDEN_PAGE,
  finishInteraction,
  homePage,
  loginPage,
  PAGE_HEADERS,
  pendingInteraction,
  validCsrf,
} from '@gatehouse-oidc/example-shared';
import { gatehouse, gatehouseWellKnown } from '@gatehouse-oidc/hono';
import { serve } from '@hono/node-server';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

type Form = Record<string, unknown>;

/** The app with Gatehouse mounted at /auth, at the origin and with the realm `options` give. */
export function createApp(options: DemoAppOptions) {
  // createProvider with the demo realm, sending the browser to /login and /consent below.
  const provider = createDemoProvider(options);
  const secure = options.origin.startsWith('https:');

  const app = new Hono();
  app.route('/auth', gatehouse(provider));
  // The realm's metadata where OAuth and MCP clients look first: RFC 8414 path insertion.
  app.route('/', gatehouseWellKnown(provider));
  const form = bodyLimit({ maxSize: 4096 });

  app.get('/', (c) => page(c, 200, homePage('Example Hono app', DISCOVERY_PATH)));

  app.get('/login', async (c) => {
    const cookie = c.req.header('cookie');
    const details = await pendingInteraction(provider, c.req.query('interaction'), 'login', cookie);
    if (!details) return page(c, 400, EXPIRED_PAGE);
    return page(c, 200, loginPage(details, csrf(c, secure, details.id)));
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
      const token = csrf(c, secure, details.id);
      return page(c, 401, loginPage(details, token, username, 'Wrong username or password.'));
    }
    return finish(provider, c, details.id, { login: { sub: user.sub, amr: ['pwd'] } });
  });

  app.get('/consent', async (c) => {
    const cookie = c.req.header('cookie');
    const details = await pendingInteraction(
      provider,
      c.req.query('interaction'),
      'consent',
      cookie,
    );
    if (!details) return page(c, 400, EXPIRED_PAGE);
    return page(c, 200, consentPage(details, csrf(c, secure, details.id)));
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
export async function start(options: DemoAppOptions & { port: number; host: string }) {
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

/** A posted form's interaction, after its CSRF token; otherwise the page to answer with. */
async function posted(provider: Provider, c: Context, body: Form, prompt: InteractionPrompt) {
  const id = field(body, 'interaction');
  if (!validCsrf(c.req.header('cookie'), id, field(body, 'csrf'))) {
    return page(c, 403, FORBIDDEN_PAGE);
  }
  return (
    (await pendingInteraction(provider, id, prompt, c.req.header('cookie'))) ??
    page(c, 400, EXPIRED_PAGE)
  );
}

/** Sends the browser on with a 303, so the form is not re-sent. */
async function finish(provider: Provider, c: Context, id: string, result: InteractionResult) {
  const next = await finishInteraction(provider, id, result, c.req.header('cookie'));
  if (next) return c.redirect(next, 303);
  return page(c, 400, EXPIRED_PAGE); // finished meanwhile, in another tab
}

/** The form's token for this browser, setting the browser's cookie the first time. */
function csrf(c: Context, secure: boolean, interaction: string): string {
  const { token, setCookie } = csrfToken(c.req.header('cookie'), interaction, secure);
  if (setCookie) c.header('set-cookie', setCookie, { append: true });
  return token;
}

const field = (body: Form, name: string): string => {
  const value = body[name];
  return typeof value === 'string' ? value : '';
};

const page = (c: Context, status: ContentfulStatusCode, html: string) =>
  c.html(html, status, PAGE_HEADERS);
