import {
  type InteractionDetails,
  InteractionError,
  type InteractionResult,
  type Interactions,
  StoreUnavailableError,
} from '@gatehouse/core';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { UserDirectory } from './accounts.js';
import { CSRF_FIELD, type CsrfTokens } from './csrf.js';
import { type Locale, pickLocale } from './i18n.js';
import type { LoginThrottle } from './login-throttle.js';
import { consentPage } from './pages/consent.js';
import { pageHeaders } from './pages/layout.js';
import { loginPage } from './pages/login.js';
import { type MessageKind, messagePage } from './pages/message.js';
import { PasswordCheckBusyError } from './password.js';
import type { ErrorReporter } from './report-error.js';

export interface InteractionPagesOptions {
  interactions: Interactions;
  users: UserDirectory;
  csrf: CsrfTokens;
  throttle: LoginThrottle;
  /** Public origin, as in the config: cookies are scoped to `{baseUrl}/oauth/{realm}/interaction`. */
  baseUrl: string;
  /**
   * Where the browser may be sent after a form of this client's pages is posted (the origins
   * of its redirect URIs): the CSP `form-action` covers every redirect that follows a post.
   */
  formTargets: (realm: string, clientId: string) => readonly string[];
  report: ErrorReporter;
}

/** Form bodies hold a username, a password and a token: anything much larger is not ours. */
const MAX_FORM_BYTES = 8 * 1024;

type Params = { realm: string; id: string };

/**
 * The built-in login and consent pages at `/oauth/{realm}/interaction/{id}`, where the provider
 * sends the browser when it needs the user. Plain HTML forms, no script. Registered beside the
 * Gatehouse plugin: the router prefers this parametric route over the plugin's catch-all.
 */
export const interactionRoutes: FastifyPluginAsync<InteractionPagesOptions> = async (
  app,
  options,
) => {
  const { interactions, users, csrf, throttle, baseUrl, formTargets, report } = options;
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: MAX_FORM_BYTES },
    (_request, body, done) => done(null, new URLSearchParams(body as string)),
  );
  // Any other body is read and dropped; the handler then answers with the form-error page.
  app.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: MAX_FORM_BYTES },
    (_request, _body, done) => done(null),
  );
  app.setErrorHandler((error: { statusCode?: number }, request, reply) => {
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendMessage(reply, 'en', status, 'badRequest');
    if (error instanceof StoreUnavailableError) {
      return sendMessage(reply, 'en', 503, 'unavailable');
    }
    report(error, { method: request.method, path: request.url.split('?', 1)[0] ?? request.url });
    return sendMessage(reply, 'en', 500, 'error');
  });

  const cookieScope = (realm: string) => {
    const issuer = new URL(`${baseUrl}/oauth/${realm}`);
    return { path: `${issuer.pathname}/interaction`, secure: issuer.protocol === 'https:' };
  };

  /** Renders the page of the interaction's prompt, with this browser's CSRF token. */
  function showPage(
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    details: InteractionDetails,
    status: number,
    failure?: { username: string; error: 'badCredentials' | 'throttled' },
  ) {
    const { realm, id } = request.params;
    const key = csrf.browserKey(request.headers.cookie, cookieScope(realm));
    if (key.setCookie) reply.header('set-cookie', key.setCookie);
    const locale = pickLocale(details.uiLocales);
    const client = details.client.name ?? details.client.id;
    const csrfField = csrf.field(key.value, realm, id);
    const body =
      details.prompt === 'login'
        ? loginPage({
            locale,
            client,
            csrfField,
            username: failure?.username ?? details.loginHint,
            ...(failure ? { error: failure.error } : {}),
          })
        : consentPage({
            locale,
            client,
            user: details.sub === undefined ? undefined : users.displayName(realm, details.sub),
            scopes: details.scopes,
            csrfField,
          });
    return sendHtml(reply, status, body, formTargets(realm, details.client.id));
  }

  /** Hands the result to the provider and sends the browser on with a 303 (never a 307). */
  async function finish(
    request: FastifyRequest<{ Params: Params }>,
    reply: FastifyReply,
    locale: Locale,
    result: InteractionResult,
    targets: readonly string[],
  ) {
    const { realm, id } = request.params;
    let location: string;
    try {
      location = await interactions.finish(realm, id, result, request.headers.cookie);
    } catch (error) {
      if (error instanceof InteractionError) return sendMessage(reply, locale, 400, 'expired');
      throw error;
    }
    return reply.code(303).headers(pageHeaders(targets)).header('location', location).send();
  }

  app.get<{ Params: Params }>('/oauth/:realm/interaction/:id', async (request, reply) => {
    const { realm, id } = request.params;
    const details = await interactions.details(realm, id, request.headers.cookie);
    if (!details) return sendMessage(reply, 'en', 400, 'expired');
    return showPage(request, reply, details, 200);
  });

  app.post<{ Params: Params }>('/oauth/:realm/interaction/:id', async (request, reply) => {
    const { realm, id } = request.params;
    const details = await interactions.details(realm, id, request.headers.cookie);
    if (!details) return sendMessage(reply, 'en', 400, 'expired');
    const locale = pickLocale(details.uiLocales);
    const form = request.body instanceof URLSearchParams ? request.body : undefined;
    if (!form) return sendMessage(reply, locale, 400, 'badRequest');
    if (!csrf.verify(request.headers.cookie, cookieScope(realm), realm, id, form.get(CSRF_FIELD))) {
      return sendMessage(reply, locale, 403, 'forbidden');
    }
    const targets = formTargets(realm, details.client.id);

    if (details.prompt === 'consent') {
      const decision = form.get('decision');
      if (decision === 'allow') {
        return finish(request, reply, locale, { consent: { scopes: details.scopes } }, targets);
      }
      if (decision === 'deny') {
        return finish(request, reply, locale, { error: 'access_denied' }, targets);
      }
      return sendMessage(reply, locale, 400, 'badRequest');
    }

    const username = form.get('username') ?? '';
    const password = form.get('password') ?? '';
    // Counted before the first await: posts sent together cannot all be checked.
    const attempt = throttle.attempt(realm, username, request.ip);
    if (!attempt) return showPage(request, reply, details, 429, { username, error: 'throttled' });
    let sub: string | undefined;
    try {
      sub = await users.authenticate(realm, username, password);
    } catch (error) {
      attempt.cancel();
      if (error instanceof PasswordCheckBusyError) {
        return sendMessage(reply, locale, 503, 'unavailable');
      }
      throw error;
    }
    if (sub === undefined) {
      return showPage(request, reply, details, 401, { username, error: 'badCredentials' });
    }
    attempt.succeeded();
    return finish(request, reply, locale, { login: { sub, amr: ['pwd'] } }, targets);
  });
};

function sendHtml(
  reply: FastifyReply,
  status: number,
  body: string,
  formTargets: readonly string[] = [],
): FastifyReply {
  return reply
    .code(status)
    .headers(pageHeaders(formTargets))
    .header('content-type', 'text/html; charset=utf-8')
    .send(body);
}

function sendMessage(
  reply: FastifyReply,
  locale: Locale,
  status: number,
  kind: MessageKind,
): FastifyReply {
  return sendHtml(reply, status, messagePage(locale, kind));
}

/**
 * The CSP sources of a client's redirect URIs: the origin of an http(s) URI, the scheme of a
 * native app's private-use URI (RFC 8252 §7.1).
 */
export function redirectSources(redirectUris: readonly string[]): string[] {
  const sources = new Set<string>();
  for (const uri of redirectUris) {
    const url = URL.parse(uri);
    if (!url) continue;
    sources.add(url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol);
  }
  return [...sources];
}
