import { CookieJar } from '../../support/cookie-jar.js';
import { type HtmlForm, parseForms } from '../../support/html-forms.js';
import { type CertificationOp, OP_ORIGIN, USER } from './op.js';

/**
 * The tester's browser, over HTTP: follows the provider's redirects with its cookies (RFC 6265
 * paths, test/support/cookie-jar.ts), signs in and consents on the built-in pages when they come,
 * and stops when it is sent to the relying party — by a redirect, or by the auto-submitting form
 * of `response_mode=form_post` — or when the provider shows a page it cannot act on (an error, a
 * logout confirmation). What the suite asks a human to screenshot ("placeholders") becomes what
 * this browser saw on the way: the pages, and how often it was asked to sign in.
 */

/** What reached the relying party: a redirect (GET) or a form post. */
export interface Callback {
  kind: 'callback';
  method: 'GET' | 'POST';
  url: URL;
  /** The request's Content-Type (form posts only). */
  contentType?: string;
  /** The query of the callback URL. */
  query: Record<string, string>;
  /** The parameters after `#`. */
  fragment: Record<string, string>;
  /** The posted form's fields. */
  body: Record<string, string>;
}

/** A page of the provider the browser stopped at. */
export interface ProviderPage {
  kind: 'page';
  status: number;
  url: URL;
  html: string;
  forms: HtmlForm[];
}

export type Arrival = Callback | ProviderPage;

const paramsOf = (search: string): Record<string, string> =>
  Object.fromEntries(new URLSearchParams(search));

export class SuiteBrowser {
  /** Login pages shown so far: each one the user answered with a password. */
  loginPages = 0;
  /** What the user answers on a consent page. */
  decision: 'allow' | 'deny' = 'allow';
  /** The user leaves a login page unanswered: the browser stops there. */
  stopAtLogin = false;

  constructor(
    private readonly op: CertificationOp,
    private readonly jar = new CookieJar(),
  ) {}

  /** The same browser with its cookies as they are now, going its own way from here. */
  clone(): SuiteBrowser {
    return new SuiteBrowser(this.op, this.jar.clone());
  }

  /** Opens `url` (a GET, or a form POST when `form` is given) and goes on as a user would. */
  async open(url: string | URL, form?: Record<string, string>): Promise<Arrival> {
    let next: { url: URL; form?: Record<string, string> } = { url: new URL(url), form };
    for (let hop = 0; hop < 20; hop++) {
      const arrived = this.#arrival(next.url, next.form);
      if (arrived) return arrived;
      const response = await this.op.fetch(next.url, {
        method: next.form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          ...this.jar.header(next.url),
          ...(next.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        ...(next.form ? { body: new URLSearchParams(next.form) } : {}),
      });
      this.jar.store(next.url, response.headers.getSetCookie());
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        next = { url: new URL(location, next.url) };
        continue;
      }
      const html = await response.text();
      const page: ProviderPage = {
        kind: 'page',
        status: response.status,
        url: next.url,
        html,
        forms: parseForms(html, next.url),
      };
      const submission = this.#userAction(page);
      if (!submission) return page;
      next = submission;
    }
    throw new Error(`too many hops, last at ${next.url}`);
  }

  /** The relying party is reached when a navigation or a form leaves the provider's origin. */
  #arrival(url: URL, form: Record<string, string> | undefined): Callback | undefined {
    if (url.origin === OP_ORIGIN) return undefined;
    return {
      kind: 'callback',
      method: form ? 'POST' : 'GET',
      url,
      ...(form ? { contentType: 'application/x-www-form-urlencoded' } : {}),
      query: paramsOf(url.search),
      fragment: paramsOf(url.hash.slice(1)),
      body: form ?? {},
    };
  }

  /** What the user (or the page's own script) does on a page, if anything. */
  #userAction(page: ProviderPage): { url: URL; form?: Record<string, string> } | undefined {
    const [form] = page.forms;
    if (form?.method !== 'POST') return undefined;
    const fields = Object.fromEntries(form.fields);
    if ('password' in fields) {
      if (this.stopAtLogin) return undefined;
      this.loginPages += 1;
      return { url: form.action, form: { ...fields, ...USER } };
    }
    const answer = form.buttons.find(
      (button) => button.name === 'decision' && button.value === this.decision,
    );
    if (answer) return { url: form.action, form: { ...fields, decision: this.decision } };
    // form_post: the page posts itself (a script, or the button without one) to the client.
    if (form.action.origin !== OP_ORIGIN) return { url: form.action, form: fields };
    return undefined;
  }

  /** Presses the button labelled `label` of the page's form (a logout confirmation). */
  async press(page: ProviderPage, label: string): Promise<Arrival> {
    for (const form of page.forms) {
      const button = form.buttons.find((candidate) => candidate.label === label);
      if (!button) continue;
      const fields = Object.fromEntries(form.fields);
      if (button.name) fields[button.name] = button.value;
      return this.open(form.action, fields);
    }
    throw new Error(`no "${label}" button on ${page.url}`);
  }
}
