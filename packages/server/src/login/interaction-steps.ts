import {
  type InteractionDetails,
  InteractionError,
  type InteractionPrompt,
  type InteractionResult,
  type Interactions,
} from '@gatehouse-oidc/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { consentPage } from '../pages/consent.js';
import { type Locale, pickLocale } from '../pages/i18n.js';
import { pageHeaders, type SafeHtml } from '../pages/layout.js';
import { loginPage } from '../pages/login.js';
import type { ErrorReporter } from '../report-error.js';
import { CSRF_FIELD, type CsrfTokens } from './csrf.js';
import { redirectSources } from './form-targets.js';
import { sendHtml, sendMessage } from './page-replies.js';
import { PasswordCheckBusyError } from './password.js';
import type { LoginThrottle } from './throttle.js';
import type { UserDirectory } from './user-directory.js';

export interface InteractionPagesOptions {
  interactions: Interactions;
  users: UserDirectory;
  csrf: CsrfTokens;
  throttle: LoginThrottle;
  /** Public origin, as in the config: on https the CSRF cookie is a `__Host-` one. */
  baseUrl: string;
  /**
   * Where the browser may be sent after a form of this client's pages is posted (the origins
   * of its redirect URIs): the CSP `form-action` covers every redirect that follows a post.
   */
  formTargets: (realm: string, clientId: string) => readonly string[];
  report: ErrorReporter;
}

export type InteractionParams = { realm: string; id: string };
type InteractionRequest = FastifyRequest<{ Params: InteractionParams }>;

/** A request on the page of an interaction the provider knows, with what answering it needs. */
interface Visit {
  request: InteractionRequest;
  reply: FastifyReply;
  realm: string;
  id: string;
  details: InteractionDetails;
  locale: Locale;
  /** The CSP `form-action` sources of this client's pages. */
  formTargets: readonly string[];
}

/** Why the login page is shown again, with the username to fill back in. */
interface LoginFailure {
  username: string;
  error: 'badCredentials' | 'throttled';
}

/** What the page of a prompt shows, and what a post of its form does. */
interface PromptForm {
  page(visit: Visit, csrfField: SafeHtml, failure?: LoginFailure): string;
  submit(visit: Visit, form: URLSearchParams): Promise<FastifyReply>;
}

/**
 * What the built-in pages do with a request on `/oauth/{realm}/interaction/{id}`: show the form
 * of the interaction's prompt, and act on it once posted. Each step answers the browser itself.
 */
export class InteractionSteps {
  readonly #options: InteractionPagesOptions;
  readonly #prompts: Readonly<Record<InteractionPrompt, PromptForm>> = {
    login: {
      page: (visit, csrfField, failure) => this.#loginPage(visit, csrfField, failure),
      submit: (visit, form) => this.#submitLogin(visit, form),
    },
    consent: {
      page: (visit, csrfField) => this.#consentPage(visit, csrfField),
      submit: (visit, form) => this.#submitConsent(visit, form),
    },
  };

  constructor(options: InteractionPagesOptions) {
    this.#options = options;
  }

  /** GET: the form of the interaction's prompt. */
  async show(request: InteractionRequest, reply: FastifyReply): Promise<FastifyReply> {
    const visit = await this.#visit(request, reply);
    if (!visit) return sendMessage(reply, 'en', 400, 'expired');
    return this.#showPrompt(visit, 200);
  }

  /** POST: the form of that page, refused without this browser's CSRF token. */
  async submit(request: InteractionRequest, reply: FastifyReply): Promise<FastifyReply> {
    const visit = await this.#visit(request, reply);
    if (!visit) return sendMessage(reply, 'en', 400, 'expired');
    const form = request.body instanceof URLSearchParams ? request.body : undefined;
    if (!form) return sendMessage(reply, visit.locale, 400, 'badRequest');
    const { realm, id } = visit;
    const token = form.get(CSRF_FIELD);
    if (!this.#options.csrf.verify(request.headers.cookie, this.#secure, realm, id, token)) {
      return sendMessage(reply, visit.locale, 403, 'forbidden');
    }
    return this.#prompts[visit.details.prompt].submit(visit, form);
  }

  /** The interaction this request is about, or undefined when it is unknown or over. */
  async #visit(request: InteractionRequest, reply: FastifyReply): Promise<Visit | undefined> {
    const { realm, id } = request.params;
    const details = await this.#options.interactions.details(realm, id, request.headers.cookie);
    if (!details) return undefined;
    return {
      request,
      reply,
      realm,
      id,
      details,
      locale: pickLocale(details.uiLocales),
      // A client of a metadata document is in no configuration: its pages may lead to where
      // this very request goes back.
      formTargets: details.client.metadataDocument
        ? redirectSources([details.redirectUri])
        : this.#options.formTargets(realm, details.client.id),
    };
  }

  /** Renders the page of the interaction's prompt, with this browser's CSRF token. */
  #showPrompt(visit: Visit, status: number, failure?: LoginFailure): FastifyReply {
    const { request, reply, realm, id } = visit;
    const { csrf } = this.#options;
    const key = csrf.browserKey(request.headers.cookie, this.#secure);
    if (key.setCookie) reply.header('set-cookie', key.setCookie);
    const body = this.#prompts[visit.details.prompt].page(
      visit,
      csrf.field(key.value, realm, id),
      failure,
    );
    return sendHtml(reply, status, body, visit.formTargets);
  }

  #loginPage(
    { realm, details, locale }: Visit,
    csrfField: SafeHtml,
    failure?: LoginFailure,
  ): string {
    // The user of the client's verified id_token_hint is the one to sign in; else its login_hint.
    const hinted =
      details.hintedSub === undefined
        ? undefined
        : this.#options.users.username(realm, details.hintedSub);
    return loginPage({
      locale,
      client: details.client.name ?? details.client.id,
      csrfField,
      username: failure?.username ?? hinted ?? details.loginHint,
      ...(failure ? { error: failure.error } : {}),
    });
  }

  #consentPage({ realm, details, locale }: Visit, csrfField: SafeHtml): string {
    return consentPage({
      locale,
      client: details.client.name ?? details.client.id,
      user:
        details.sub === undefined ? undefined : this.#options.users.displayName(realm, details.sub),
      scopes: details.scopes,
      csrfField,
      ...(details.device ? { deviceUserCode: details.device.userCode } : {}),
      ...(details.client.metadataDocument
        ? {
            redirect: {
              host: details.client.metadataDocument.redirectHost,
              loopback: details.client.metadataDocument.loopback,
            },
          }
        : {}),
    });
  }

  /** Checks the username and password, throttled, and signs the user in when they match. */
  async #submitLogin(visit: Visit, form: URLSearchParams): Promise<FastifyReply> {
    const { realm, request } = visit;
    const username = form.get('username') ?? '';
    const password = form.get('password') ?? '';
    // Counted before the first await: posts sent together cannot all be checked.
    const attempt = this.#options.throttle.attempt(realm, username, request.ip);
    if (!attempt) return this.#showPrompt(visit, 429, { username, error: 'throttled' });
    let sub: string | undefined;
    try {
      const kind = attempt.suspect ? 'suspect-check' : 'check';
      sub = await this.#options.users.authenticate(realm, username, password, kind);
    } catch (error) {
      if (error instanceof PasswordCheckBusyError) {
        attempt.busy();
        return sendMessage(visit.reply, visit.locale, 503, 'unavailable');
      }
      attempt.cancel();
      throw error;
    }
    if (sub === undefined) {
      return this.#showPrompt(visit, 401, { username, error: 'badCredentials' });
    }
    attempt.succeeded();
    return this.#finish(visit, { login: { sub, amr: ['pwd'] } });
  }

  /** Allow grants the scopes the client asked for; deny ends the request with access_denied. */
  async #submitConsent(visit: Visit, form: URLSearchParams): Promise<FastifyReply> {
    const decision = form.get('decision');
    if (decision === 'allow') {
      return this.#finish(visit, { consent: { scopes: visit.details.scopes } });
    }
    if (decision === 'deny') return this.#finish(visit, { error: 'access_denied' });
    return sendMessage(visit.reply, visit.locale, 400, 'badRequest');
  }

  /** Hands the result to the provider and sends the browser on with a 303 (never a 307). */
  async #finish(visit: Visit, result: InteractionResult): Promise<FastifyReply> {
    const { request, reply, realm, id } = visit;
    let location: string;
    try {
      location = await this.#options.interactions.finish(realm, id, result, request.headers.cookie);
    } catch (error) {
      if (error instanceof InteractionError)
        return sendMessage(reply, visit.locale, 400, 'expired');
      throw error;
    }
    return reply
      .code(303)
      .headers(pageHeaders(visit.formTargets))
      .header('location', location)
      .send();
  }

  /** Whether the pages are served over https, where the CSRF cookie is a `__Host-` one. */
  get #secure(): boolean {
    return this.#options.baseUrl.startsWith('https:');
  }
}
