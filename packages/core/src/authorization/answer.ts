import type { RealmContext } from '../context.js';
import { type ErrorDialect, wireCode } from '../errors/codes.js';
import { OAuthError } from '../errors/oauth-error.js';
import { escapeHtml, htmlPage } from '../http/html.js';
import type { GatehouseResponse } from '../http/types.js';
import { type ResponseTarget, respondToClient } from './redirect.js';

/**
 * Runs one step of an authorization. Errors the client may hear about (docs/interface.md §7.2) are
 * redirected to it, with `error`, `error_description`, `state` and `iss`; every other OAuth error
 * is shown to the user at the provider (docs/interface.md §7.1). Anything else propagates to the
 * provider's error handling.
 */
export async function answerAuthorization(
  context: RealmContext,
  target: ResponseTarget | undefined,
  delivery: { method: string; cookies?: readonly string[] },
  step: () => Promise<GatehouseResponse>,
): Promise<GatehouseResponse> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    const dialect = context.realm.errorDialect;
    if (target && error.redirectable) {
      const params: Record<string, string> = { error: wireCode(error.code, dialect) };
      if (error.description) params.error_description = error.description;
      const response = respondToClient(
        target,
        params,
        context.realm.issuer,
        delivery.method,
        delivery.cookies,
      );
      return { ...response, errorCode: error.code };
    }
    return { ...errorPage(error, dialect, delivery.cookies), errorCode: error.code };
  }
}

/** A docs/interface.md §7.1 error, shown to the user: the code and the description, escaped. */
function errorPage(
  error: OAuthError,
  dialect: ErrorDialect,
  cookies?: readonly string[],
): GatehouseResponse {
  const page = htmlPage(
    error.status,
    'Sign-in error',
    `<h1>Sign-in error</h1><p><code id="error">${escapeHtml(wireCode(error.code, dialect))}</code></p>${
      error.description ? `<p id="error_description">${escapeHtml(error.description)}</p>` : ''
    }`,
  );
  return cookies && cookies.length > 0 ? { ...page, cookies } : page;
}
