import { OAuthError, StoreUnavailableError } from '@gatehouse-oidc/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Locale } from '../pages/i18n.js';
import { pageHeaders } from '../pages/layout.js';
import { type MessageKind, messagePage } from '../pages/message.js';
import { type ErrorReporter, reportedPath } from '../report-error.js';

/** An HTML page with the headers every built-in page carries. */
export function sendHtml(
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

/** A page that only says why the sign-in cannot go on. */
export function sendMessage(
  reply: FastifyReply,
  locale: Locale,
  status: number,
  kind: MessageKind,
): FastifyReply {
  return sendHtml(reply, status, messagePage(locale, kind));
}

/**
 * The error handler of the pages' routes: a refused body is a form error, an unreachable store
 * or a realm that cannot be served (told to the operator where it is found) a 503, anything else
 * is reported and answered with a page that gives no detail.
 */
export function errorPages(report: ErrorReporter) {
  return (error: { statusCode?: number }, request: FastifyRequest, reply: FastifyReply) => {
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) return sendMessage(reply, 'en', status, 'badRequest');
    if (
      error instanceof StoreUnavailableError ||
      (error instanceof OAuthError && error.code === 'temporarily_unavailable')
    ) {
      return sendMessage(reply, 'en', 503, 'unavailable');
    }
    report(error, { method: request.method, path: reportedPath(request.url) });
    return sendMessage(reply, 'en', 500, 'error');
  };
}
