import type { AddressInfo } from 'node:net';
import type { InteractionPrompt, InteractionResult, Provider } from '@gatehouse-oidc/core';
// The demo realm, the user table, the forms' CSRF tokens and the pages are the same in every
// example app: see examples/shared/src. This file is the Fastify part: routes and answers.
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
import { gatehouse, gatehouseWellKnown } from '@gatehouse-oidc/fastify';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';

/** The app with Gatehouse mounted at /auth, at the origin and with the realm `options` give. */
export async function createApp(options: DemoAppOptions) {
  // createProvider with the demo realm, sending the browser to /login and /consent below.
  const provider = createDemoProvider(options);
  const secure = options.origin.startsWith('https:');

  const app = Fastify();
  app.addHook('onClose', () => provider.close());
  // Encapsulated: Gatehouse's routes keep their own body parser, the app's get the one below.
  await app.register(gatehouse, { provider, prefix: '/auth' });
  // The realm's metadata where OAuth and MCP clients look first: RFC 8414 path insertion.
  await app.register(gatehouseWellKnown, { provider });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 4096 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  app.get('/', async (_request, reply) =>
    page(reply, 200, homePage('Example Fastify app', DISCOVERY_PATH)),
  );

  app.get('/login', async (request, reply) => {
    const { cookie } = request.headers;
    const details = await pendingInteraction(provider, query(request), 'login', cookie);
    if (!details) return page(reply, 400, EXPIRED_PAGE);
    return page(reply, 200, loginPage(details, csrf(request, reply, secure, details.id)));
  });
  app.post('/login', async (request, reply) => {
    const details = await posted(provider, request, reply, 'login');
    if (!details) return reply;
    if (field(request, 'action') === 'cancel') {
      return finish(provider, request, reply, details.id, { error: 'access_denied' });
    }
    const username = field(request, 'username');
    const user = await checkPassword(username, field(request, 'password'));
    if (!user) {
      const token = csrf(request, reply, secure, details.id);
      return page(reply, 401, loginPage(details, token, username, 'Wrong username or password.'));
    }
    return finish(provider, request, reply, details.id, { login: { sub: user.sub, amr: ['pwd'] } });
  });

  app.get('/consent', async (request, reply) => {
    const { cookie } = request.headers;
    const details = await pendingInteraction(provider, query(request), 'consent', cookie);
    if (!details) return page(reply, 400, EXPIRED_PAGE);
    return page(reply, 200, consentPage(details, csrf(request, reply, secure, details.id)));
  });
  app.post('/consent', async (request, reply) => {
    const details = await posted(provider, request, reply, 'consent');
    if (!details) return reply;
    const result: InteractionResult =
      field(request, 'decision') === 'allow'
        ? { consent: { scopes: details.scopes } }
        : { error: 'access_denied' };
    return finish(provider, request, reply, details.id, result);
  });

  return app;
}

/** Listens on `port` (0 picks a free one). */
export async function start(options: DemoAppOptions & { port: number; host: string }) {
  const app = await createApp(options);
  await app.listen({ port: options.port, host: options.host });
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}

/** A posted form's interaction, after its CSRF token; answers the request itself otherwise. */
async function posted(
  provider: Provider,
  request: FastifyRequest,
  reply: FastifyReply,
  prompt: InteractionPrompt,
) {
  const id = field(request, 'interaction');
  if (!validCsrf(request.headers.cookie, id, field(request, 'csrf'))) {
    return void page(reply, 403, FORBIDDEN_PAGE);
  }
  return (
    (await pendingInteraction(provider, id, prompt, request.headers.cookie)) ??
    void page(reply, 400, EXPIRED_PAGE)
  );
}

/** Sends the browser on with a 303, so the form is not re-sent. */
async function finish(
  provider: Provider,
  request: FastifyRequest,
  reply: FastifyReply,
  id: string,
  result: InteractionResult,
) {
  const next = await finishInteraction(provider, id, result, request.headers.cookie);
  if (next) return reply.redirect(next, 303);
  return page(reply, 400, EXPIRED_PAGE); // finished meanwhile, in another tab
}

/** The form's token for this browser, setting the browser's cookie the first time. */
function csrf(
  request: FastifyRequest,
  reply: FastifyReply,
  secure: boolean,
  interaction: string,
): string {
  const { token, setCookie } = csrfToken(request.headers.cookie, interaction, secure);
  if (setCookie) reply.header('set-cookie', setCookie);
  return token;
}

const query = (request: FastifyRequest) => (request.query as Record<string, unknown>).interaction;
const field = (request: FastifyRequest, name: string): string => {
  const value: unknown = (request.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
};

function page(reply: FastifyReply, status: number, html: string): FastifyReply {
  return reply
    .code(status)
    .headers({ 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS })
    .send(html);
}
