import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import type { Arrival, Callback, ProviderPage } from './browser.js';
import { type CertificationOp, OP_ORIGIN, RP_ORIGIN, USER } from './op.js';

/**
 * The tester's browser for what needs a real one: the Session Management plan, whose check runs
 * in the OP's check_session_iframe. Chromium talks to the provider's https origin through a route
 * that forwards to the loopback server (cookies, redirects and all), and to the relying party's
 * origin through a route that records each request there and answers a blank page — except the
 * relying party's session-check page, which frames the OP's iframe and asks it about the session.
 */

const SESSION_CHECK_PATH = '/session-check';
/** Headers of one connection, which neither fetch nor a fulfilled response may carry over. */
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'upgrade',
]);

/** The RP page (OIDC Session Management §3.2): posts "client_id session_state", shows the answer. */
function sessionCheckPage(checkSessionIframe: string, message: string): string {
  const origin = new URL(checkSessionIframe).origin;
  return `<!DOCTYPE html><title>session check</title><output id="answer"></output>
<iframe id="op" src="${checkSessionIframe}"></iframe>
<script>
  window.addEventListener('message', (event) => {
    if (event.origin === ${JSON.stringify(origin)}) document.getElementById('answer').textContent = event.data;
  });
  document.getElementById('op').addEventListener('load', (event) => {
    event.target.contentWindow.postMessage(${JSON.stringify(message)}, ${JSON.stringify(origin)});
  });
</script>`;
}

export class ChromiumSuiteBrowser {
  loginPages = 0;
  #arrivals: Callback[] = [];
  /** What the relying party received in frames of the provider's pages (front-channel logout). */
  framed: Callback[] = [];
  #checkSessionIframe = '';

  private constructor(
    private readonly context: BrowserContext,
    private readonly page: Page,
    private readonly op: CertificationOp,
  ) {}

  static async start(browser: Browser, op: CertificationOp): Promise<ChromiumSuiteBrowser> {
    const context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const suite = new ChromiumSuiteBrowser(context, page, op);
    await context.route('**/*', (route) => suite.#route(route));
    return suite;
  }

  async #route(route: Route): Promise<void> {
    const request = route.request();
    const url = new URL(request.url());
    if (url.origin === OP_ORIGIN) {
      const headers = await request.allHeaders();
      for (const name of Object.keys(headers))
        if (name.startsWith(':') || HOP_BY_HOP.has(name)) delete headers[name];
      const response = await this.op.fetch(url, {
        method: request.method(),
        headers,
        body: request.postDataBuffer() ?? undefined,
        redirect: 'manual',
      });
      const answer: Record<string, string> = Object.fromEntries(
        [...response.headers].filter(([name]) => !HOP_BY_HOP.has(name)),
      );
      const cookies = response.headers.getSetCookie();
      if (cookies.length > 0) answer['set-cookie'] = cookies.join('\n');
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        // Chromium sends the request after a fulfilled redirect past the route, to a name that
        // does not resolve: the redirect is made by the page instead (cookies set all the same).
        const target = new URL(location, url).href
          .replaceAll('&', '&amp;')
          .replaceAll('"', '&quot;');
        answer['content-type'] = 'text/html';
        return route.fulfill({
          status: 200,
          headers: answer,
          body: `<meta http-equiv="refresh" content="0;url=${target}">`,
        });
      }
      return route.fulfill({
        status: response.status,
        headers: answer,
        body: Buffer.from(await response.arrayBuffer()),
      });
    }
    if (url.origin !== RP_ORIGIN) return route.abort();
    if (url.pathname === SESSION_CHECK_PATH) {
      const message = url.searchParams.get('message') ?? '';
      return route.fulfill({
        contentType: 'text/html',
        body: sessionCheckPage(this.#checkSessionIframe, message),
      });
    }
    const form =
      request.method() === 'POST'
        ? Object.fromEntries(new URLSearchParams(request.postData() ?? ''))
        : {};
    const arrivals = request.frame() === this.page.mainFrame() ? this.#arrivals : this.framed;
    arrivals.push({
      kind: 'callback',
      method: request.method() === 'POST' ? 'POST' : 'GET',
      url,
      ...(request.method() === 'POST' ? { contentType: request.headers()['content-type'] } : {}),
      query: Object.fromEntries(url.searchParams),
      fragment: Object.fromEntries(new URLSearchParams(url.hash.slice(1))),
      body: form,
    });
    return route.fulfill({
      contentType: 'text/html',
      body: '<!DOCTYPE html><title>relying party</title>',
    });
  }

  /** Navigates to `url` and acts as the user until the browser reaches the relying party. */
  async open(url: string | URL): Promise<Arrival> {
    this.#arrivals = [];
    await this.page.goto(String(url));
    return this.#untilRelyingParty();
  }

  /** Presses the page's button labelled `label`, then acts as `open` does. */
  async press(_page: ProviderPage, label: string): Promise<Arrival> {
    this.#arrivals = [];
    await this.page.getByRole('button', { name: label }).click();
    return this.#untilRelyingParty();
  }

  async #untilRelyingParty(): Promise<Arrival> {
    const password = this.page.locator('input[name=password]');
    const allow = this.page.locator('button[name=decision][value=allow]');
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const arrived = this.#arrivals.shift();
      if (arrived) {
        // A fragment never reaches a server: the address bar has it.
        const address = new URL(this.page.url());
        return {
          ...arrived,
          fragment: Object.fromEntries(new URLSearchParams(address.hash.slice(1))),
        };
      }
      if (await password.isVisible()) {
        this.loginPages += 1;
        await this.page.locator('input[name=username]').fill(USER.username);
        await password.fill(USER.password);
        await this.page.locator('form button:not([name])').first().click();
        await password.waitFor({ state: 'detached' });
      } else if (await allow.isVisible()) {
        await allow.click();
        await allow.waitFor({ state: 'detached' });
      } else {
        await this.page.waitForTimeout(25);
      }
    }
    throw new Error(`the browser did not reach the relying party; it is at ${this.page.url()}`);
  }

  /** What the OP's check_session_iframe answers the relying party about `sessionState`. */
  async sessionStatus(
    checkSessionIframe: string,
    clientId: string,
    sessionState: string,
  ): Promise<string> {
    this.#checkSessionIframe = checkSessionIframe;
    const query = new URLSearchParams({ message: `${clientId} ${sessionState}` });
    await this.page.goto(`${RP_ORIGIN}${SESSION_CHECK_PATH}?${query}`);
    const answer = this.page.locator('#answer');
    await answer.filter({ hasText: /./ }).waitFor();
    return (await answer.textContent()) ?? '';
  }

  close(): Promise<void> {
    return this.context.close();
  }
}
