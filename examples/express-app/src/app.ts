import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { InteractionPrompt, InteractionResult, Provider } from '@gatehouse-oidc/core';
// The demo realm, the user table, the forms' CSRF tokens and the pages are the same in every
// example app: see examples/shared/src. This file is the Express part: routes and answers.
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
import { gatehouse, gatehouseWellKnown } from '@gatehouse-oidc/express';
import express, { type Request, type Response } from 'express';

/** The app with Gatehouse mounted at /auth, at the origin and with the realm `options` give. */
export function createApp(options: DemoAppOptions) {
  // createProvider with the demo realm, sending the browser to /login and /consent below.
  const provider = createDemoProvider(options);
  const secure = options.origin.startsWith('https:');

  const app = express();
  app.use('/auth', gatehouse(provider)); // before any body parser: Gatehouse reads its own bodies
  // The realm's metadata where OAuth and MCP clients look first: RFC 8414 path insertion.
  app.use(gatehouseWellKnown(provider));
  const form = express.urlencoded({ extended: false, limit: '4kb' });

  app.get('/', (_req, res) => page(res, 200, homePage('Example Express app', DISCOVERY_PATH)));

  app.get('/login', async (req, res) => {
    const { cookie } = req.headers;
    const details = await pendingInteraction(provider, req.query.interaction, 'login', cookie);
    if (!details) return page(res, 400, EXPIRED_PAGE);
    page(res, 200, loginPage(details, csrf(req, res, secure, details.id)));
  });
  app.post('/login', form, async (req, res) => {
    const details = await posted(provider, req, res, 'login');
    if (!details) return;
    if (field(req, 'action') === 'cancel') {
      return finish(provider, req, res, details.id, { error: 'access_denied' });
    }
    const username = field(req, 'username');
    const user = await checkPassword(username, field(req, 'password'));
    if (!user) {
      const token = csrf(req, res, secure, details.id);
      return page(res, 401, loginPage(details, token, username, 'Wrong username or password.'));
    }
    await finish(provider, req, res, details.id, { login: { sub: user.sub, amr: ['pwd'] } });
  });

  app.get('/consent', async (req, res) => {
    const { cookie } = req.headers;
    const details = await pendingInteraction(provider, req.query.interaction, 'consent', cookie);
    if (!details) return page(res, 400, EXPIRED_PAGE);
    page(res, 200, consentPage(details, csrf(req, res, secure, details.id)));
  });
  app.post('/consent', form, async (req, res) => {
    const details = await posted(provider, req, res, 'consent');
    if (!details) return;
    const result: InteractionResult =
      field(req, 'decision') === 'allow'
        ? { consent: { scopes: details.scopes } }
        : { error: 'access_denied' };
    await finish(provider, req, res, details.id, result);
  });

  return { app, provider };
}

/** Listens on `port` (0 picks a free one). */
export async function start(options: DemoAppOptions & { port: number; host: string }) {
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

/** A posted form's interaction, after its CSRF token; answers the request itself otherwise. */
async function posted(provider: Provider, req: Request, res: Response, prompt: InteractionPrompt) {
  const id = field(req, 'interaction');
  if (!validCsrf(req.headers.cookie, id, field(req, 'csrf'))) {
    return void page(res, 403, FORBIDDEN_PAGE);
  }
  return (
    (await pendingInteraction(provider, id, prompt, req.headers.cookie)) ??
    void page(res, 400, EXPIRED_PAGE)
  );
}

/** Sends the browser on with a 303, so the form is not re-sent. */
async function finish(
  provider: Provider,
  req: Request,
  res: Response,
  id: string,
  result: InteractionResult,
) {
  const next = await finishInteraction(provider, id, result, req.headers.cookie);
  if (next) res.redirect(303, next);
  else page(res, 400, EXPIRED_PAGE); // finished meanwhile, in another tab
}

/** The form's token for this browser, setting the browser's cookie the first time. */
function csrf(req: Request, res: Response, secure: boolean, interaction: string): string {
  const { token, setCookie } = csrfToken(req.headers.cookie, interaction, secure);
  if (setCookie) res.append('set-cookie', setCookie);
  return token;
}

const field = (req: Request, name: string): string => {
  const value: unknown = req.body?.[name];
  return typeof value === 'string' ? value : '';
};

function page(res: Response, status: number, html: string): void {
  res.status(status).type('html').set(PAGE_HEADERS).send(html);
}
