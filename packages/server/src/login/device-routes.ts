import type { DeviceVerification } from '@gatehouse-oidc/core';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { deviceCodePage, deviceOutcomePage } from '../pages/device.js';
import { acceptLanguages, type Locale, pickLocale } from '../pages/i18n.js';
import { pageHeaders } from '../pages/layout.js';
import type { ErrorReporter } from '../report-error.js';
import { CSRF_FIELD, type CsrfTokens } from './csrf.js';
import { acceptOnlyForms } from './interaction-routes.js';
import { errorPages, sendHtml, sendMessage } from './page-replies.js';
import type { LoginThrottle } from './throttle.js';

export interface DevicePagesOptions {
  device: DeviceVerification;
  /** Whether the provider serves a realm of that name. */
  realmExists: (name: string) => Promise<boolean>;
  csrf: CsrfTokens;
  throttle: LoginThrottle;
  /** Public origin, as in the config: on https the CSRF cookie is a `__Host-` one. */
  baseUrl: string;
  report: ErrorReporter;
}

const PATH = '/oauth/:realm/device';
/** What the CSRF tokens of this page are bound to, in place of an interaction id. */
const CSRF_SCOPE = 'device';

type DeviceRequest = FastifyRequest<{
  Params: { realm: string };
  Querystring: Record<string, string | undefined>;
}>;

/**
 * The page at `verification_uri` (RFC 8628 §3.3), `/oauth/{realm}/device`: one form for the
 * user code (filled in from `verification_uri_complete`), which hands the user to the usual
 * login and consent pages; the browser comes back to it when the user has answered, and it then
 * says whether the device may continue. Every code that names nothing counts against the
 * address in the login throttle. Plain HTML, no script.
 */
export const deviceRoutes: FastifyPluginAsync<DevicePagesOptions> = async (app, options) => {
  acceptOnlyForms(app);
  app.setErrorHandler(errorPages(options.report));
  const secure = options.baseUrl.startsWith('https:');

  /** The code form, with this browser's CSRF token. */
  function showForm(
    request: DeviceRequest,
    reply: FastifyReply,
    status: number,
    view: { userCode?: string; error?: 'badUserCode' | 'throttled' },
  ): FastifyReply {
    const key = options.csrf.browserKey(request.headers.cookie, secure);
    if (key.setCookie) reply.header('set-cookie', key.setCookie);
    const csrfField = options.csrf.field(key.value, request.params.realm, CSRF_SCOPE);
    return sendHtml(
      reply,
      status,
      deviceCodePage({ locale: localeOf(request), csrfField, ...view }),
    );
  }

  app.get<{ Params: { realm: string }; Querystring: Record<string, string | undefined> }>(
    PATH,
    async (request, reply) => {
      const locale = localeOf(request);
      if (!(await options.realmExists(request.params.realm))) {
        return sendMessage(reply, locale, 404, 'expired');
      }
      const { result, error, user_code: userCode } = request.query;
      if (result === 'approved') return sendHtml(reply, 200, deviceOutcomePage(locale, 'approved'));
      if (error !== undefined) return sendHtml(reply, 200, deviceOutcomePage(locale, 'denied'));
      return showForm(request, reply, 200, userCode === undefined ? {} : typedBack(userCode));
    },
  );

  app.post<{ Params: { realm: string }; Querystring: Record<string, string | undefined> }>(
    PATH,
    async (request, reply) => {
      const locale = localeOf(request);
      const { realm } = request.params;
      const form = request.body instanceof URLSearchParams ? request.body : undefined;
      if (!form) return sendMessage(reply, locale, 400, 'badRequest');
      if (
        !options.csrf.verify(
          request.headers.cookie,
          secure,
          realm,
          CSRF_SCOPE,
          form.get(CSRF_FIELD),
        )
      ) {
        return sendMessage(reply, locale, 403, 'forbidden');
      }
      const typed = typedBack(form.get('user_code') ?? '');
      // Counted before the first await: codes posted together cannot all be tried.
      const attempt = options.throttle.userCodeAttempt(request.ip);
      if (!attempt) return showForm(request, reply, 429, { ...typed, error: 'throttled' });
      let started: Awaited<ReturnType<DeviceVerification['start']>>;
      try {
        started = await options.device.start(realm, typed.userCode, {
          cookieHeader: request.headers.cookie,
          uiLocales: [locale],
        });
      } catch (failure) {
        attempt.cancel();
        throw failure;
      }
      if (!started) return showForm(request, reply, 400, { ...typed, error: 'badUserCode' });
      attempt.cancel();
      return reply
        .code(303)
        .headers(pageHeaders())
        .header('set-cookie', started.cookies)
        .header('location', started.location)
        .send();
    },
  );
};

/** What the user typed, to fill the form in again: no code is longer than this. */
const typedBack = (userCode: string) => ({ userCode: userCode.slice(0, 32) });

/** The page's language: `ui_locales` in its URL if any, else the browser's languages. */
function localeOf(request: DeviceRequest): Locale {
  const uiLocales = request.query.ui_locales;
  return pickLocale(
    uiLocales === undefined
      ? acceptLanguages(request.headers['accept-language'])
      : uiLocales.split(' '),
  );
}
