import { createHmac } from 'node:crypto';
import * as authz from '../conditions/authorization-response.js';
import * as bcl from '../conditions/logout-notifications.js';
import type { Arrival, Callback, ProviderPage, SuiteBrowser } from '../support/browser.js';
import { condition, fail } from '../support/checks.js';
import type { ChromiumSuiteBrowser } from '../support/chromium-browser.js';
import {
  FRONTCHANNEL_LOGOUT_URI,
  OP_ORIGIN,
  POST_LOGOUT_REDIRECT_URI,
  RP_ORIGIN,
} from '../support/op.js';
import { type ModuleContext, ServerTest, type UserAgent } from '../support/server-test.js';
import type { OidcFlowState } from '../support/state.js';

/**
 * The RP-Initiated Logout plan's modules (AbstractOIDCCRpInitiatedLogout): sign in, send the
 * browser to end_session_endpoint with the module's parameters, then check where it ends. When
 * it must come back to post_logout_redirect_uri, a prompt=none authorization afterwards must fail
 * (the user is signed out). When it must not, the provider shows an error or asks the user; the
 * user confirming then signs out without ever being sent to the relying party.
 */

export type EndSessionRequest = Record<string, string>;

/** The suite's state for the end_session request: printable ASCII, 10 to 30 characters. */
export function endSessionState(): string {
  const length = 10 + Math.floor(Math.random() * 21);
  return Array.from({ length }, () => String.fromCharCode(0x21 + Math.floor(Math.random() * 94)))
    .join('')
    .replace(/[+;]/g, '~');
}

const postLogoutParams = (callback: Callback) => callback.query;

export const CheckPostLogoutState = condition(
  'CheckPostLogoutState',
  ({ callback, expected }: { callback: Callback; expected: string }) => {
    const state = postLogoutParams(callback).state;
    if (state === undefined) fail('no state at the post_logout_redirect_uri');
    if (state !== expected) fail('the state came back changed');
  },
);

const CheckNoPostLogoutState = condition('CheckNoPostLogoutState', (callback: Callback) => {
  if (postLogoutParams(callback).state !== undefined)
    fail('a state came back though none was sent');
});

export const CheckForUnexpectedParametersInPostLogoutRedirect = condition(
  'CheckForUnexpectedParametersInPostLogoutRedirect',
  (callback: Callback) => {
    const extra = Object.keys(postLogoutParams(callback)).filter((name) => name !== 'state');
    if (extra.length > 0) fail(`unexpected parameters: ${extra.join(', ')}`);
  },
);

/** The OP page asking the user to confirm, as the suite's screenshot would show it. */
const isConfirmation = (page: ProviderPage) =>
  page.status === 200 &&
  page.forms.some(
    (form) => form.method === 'POST' && form.action.origin === OP_ORIGIN && form.buttons.length > 0,
  );

/** Expect…ErrorPage of the logout modules: an error, or the user asked to confirm. */
const errorOrConfirmationPage = (name: string) =>
  condition(name, (arrival: Arrival) => {
    if (arrival.kind === 'callback') fail(`the provider sent the browser to ${arrival.url.href}`);
    if (!isConfirmation(arrival) && (arrival.status < 400 || arrival.status > 499)) {
      fail(`neither an error nor a confirmation (${arrival.status})`);
    }
  });

/** ExpectSuccessfulLogoutPage: "you are signed out", after the user confirmed if asked. */
const ExpectSuccessfulLogoutPage = condition('ExpectSuccessfulLogoutPage', (arrival: Arrival) => {
  if (arrival.kind === 'callback') fail(`the provider sent the browser to ${arrival.url.href}`);
  if (arrival.status !== 200 || isConfirmation(arrival))
    fail(`no signed-out page (${arrival.status})`);
});

/** How a module's logout must end. */
export type LogoutExpectation =
  | 'redirect-with-state'
  | 'redirect-without-state'
  | 'refused'
  | 'signed-out-page';

/** What the logout modules need of a browser: also to press a button of the provider's page. */
export interface LogoutUserAgent extends UserAgent {
  press(page: ProviderPage, label: string): Promise<Arrival>;
}

export class OidccRpInitiatedLogout<
  B extends LogoutUserAgent = SuiteBrowser,
> extends ServerTest<B> {
  override stateLength = 128;
  #firstTime = true;
  readonly #endSessionState = endSessionState();

  constructor(
    context: ModuleContext<B>,
    private readonly customize: (request: EndSessionRequest, state: OidcFlowState) => void,
    private readonly expectation: LogoutExpectation,
    private readonly placeholder = 'ExpectSuccessfulLogoutPage',
  ) {
    super(context);
  }

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    if (!this.#firstTime) request.prompt = 'none';
  }

  protected override async onAuthorizationCallbackResponse(): Promise<void> {
    if (this.#firstTime) {
      this.#firstTime = false;
      return super.onAuthorizationCallbackResponse();
    }
    this.performGenericAuthorizationEndpointErrorResponseValidation();
    this.run.check(
      'FAILURE',
      authz.CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface,
      this.state,
    );
  }

  /** CreateEndSessionEndpointRequest, customized, then BuildRedirectToEndSessionEndpoint. */
  protected override async onPostAuthorizationFlowComplete(): Promise<void> {
    const request: EndSessionRequest = {
      id_token_hint: this.state.idToken?.value ?? '',
      post_logout_redirect_uri: POST_LOGOUT_REDIRECT_URI,
      state: this.#endSessionState,
    };
    this.customize(request, this.state);
    const url = new URL(String(this.state.server.end_session_endpoint));
    for (const [name, value] of Object.entries(request)) url.searchParams.append(name, value);
    await this.afterLogout(await this.browser.open(url));
  }

  private async afterLogout(arrival: Arrival): Promise<void> {
    const { run } = this;
    if (
      this.expectation === 'redirect-with-state' ||
      this.expectation === 'redirect-without-state'
    ) {
      const confirmed =
        arrival.kind === 'page' && isConfirmation(arrival)
          ? await this.browser.press(arrival, 'Sign out')
          : arrival;
      if (
        confirmed.kind !== 'callback' ||
        !confirmed.url.href.startsWith(POST_LOGOUT_REDIRECT_URI)
      ) {
        return run.abort('the browser never came back to the post_logout_redirect_uri');
      }
      await this.verifyLogoutNotifications();
      if (this.expectation === 'redirect-with-state') {
        run.check('FAILURE', CheckPostLogoutState, {
          callback: confirmed,
          expected: this.#endSessionState,
        });
      } else {
        run.check('FAILURE', CheckNoPostLogoutState, confirmed);
      }
      run.check('WARNING', CheckForUnexpectedParametersInPostLogoutRedirect, confirmed);
      // The prompt=none authorization request that checks the logout happened.
      return this.performAuthorizationFlow();
    }
    if (this.expectation === 'refused') {
      run.check('FAILURE', errorOrConfirmationPage(this.placeholder), arrival);
      if (arrival.kind === 'page' && isConfirmation(arrival))
        this.neverToRelyingParty(await this.browser.press(arrival, 'Sign out'));
      return;
    }
    const confirmed =
      arrival.kind === 'page' && isConfirmation(arrival)
        ? await this.browser.press(arrival, 'Sign out')
        : arrival;
    this.neverToRelyingParty(confirmed);
    run.check('FAILURE', ExpectSuccessfulLogoutPage, confirmed);
    // What the screenshot of "you are signed out" claims: prompt=none now needs a login.
    return this.performAuthorizationFlow();
  }

  /** What the relying party must have been told besides the redirect (the logout channels). */
  protected async verifyLogoutNotifications(): Promise<void> {}

  /** The suite fails a module whose post_logout_redirect_uri is called when it must not be. */
  private neverToRelyingParty(arrival: Arrival): void {
    if (arrival.kind === 'callback' && arrival.url.origin === RP_ORIGIN) {
      this.run.abort(`the provider called ${arrival.url.href} though it must not`);
    }
  }
}

/** ChangeIdTokenToAlgNone: the ID token's claims under an `alg: none` header. */
export function unsignedCopy(idToken: string): string {
  const [, payload] = idToken.split('.');
  return `${Buffer.from('{"alg": "none"}').toString('base64url')}.${payload}.`;
}

/** GenerateFakeIdTokenClaims + SignFakeIdToken: a token the suite signs with the client secret. */
export function fakeIdToken(state: OidcFlowState): string {
  const now = Math.floor(state.now / 1000);
  const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url');
  const claims = {
    iss: state.client.id,
    sub: 'SubjectID',
    aud: state.server.issuer,
    nonce: 'flibble',
    iat: now,
    exp: now + 300,
  };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = createHmac('sha256', state.client.secret)
    .update(`${header}.${payload}`)
    .digest('base64url');
  return `${header}.${payload}.${signature}`;
}

/** Waits a little for `found` to give something: the OP tells relying parties in the background. */
async function eventually<T>(found: () => T | undefined): Promise<T | undefined> {
  for (let tick = 0; tick < 200; tick++) {
    const value = found();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return found();
}

/**
 * oidcc-backchannel-rp-initiated-logout: the logout of oidcc-rp-initiated-logout, after which the
 * backchannel_logout_uri must have received a valid logout token for the session of the sign-in.
 * The suite's checks of the incoming request's TLS version do not apply to a loopback test.
 */
export class OidccBackChannelRpInitiatedLogout extends OidccRpInitiatedLogout {
  constructor(context: ModuleContext) {
    super(context, () => {}, 'redirect-with-state');
  }

  protected override async verifyLogoutNotifications(): Promise<void> {
    const { run, state } = this;
    const fields = await eventually(() => this.op.backchannelRequests.at(-1));
    if (!fields) return run.abort('the backchannel_logout_uri was never called');
    const request = { fields };
    run.require(bcl.ExtractLogoutTokenFromBackchannelLogoutRequest, request);
    run.check('WARNING', bcl.CheckForUnexpectedParametersInBackchannelLogoutRequest, request);
    const check = { token: bcl.extractLogoutToken(request), state };
    run.check('FAILURE', bcl.ValidateLogoutTokenSignature, check);
    run.check('FAILURE', bcl.ValidateLogoutTokenClaims, check);
    if (check.token.claims.sub !== undefined)
      run.check('FAILURE', bcl.CheckIdTokenSubMatchesLogoutToken, check);
    if (check.token.claims.sid !== undefined)
      run.check('FAILURE', bcl.CheckIdTokenSidMatchesLogoutToken, check);
    run.check('FAILURE', bcl.CheckLogoutTokenNoNonce, check);
    run.check('FAILURE', bcl.CheckLogoutTokenHasSubOrSid, check);
  }
}

/**
 * oidcc-frontchannel-rp-initiated-logout: the logout of oidcc-rp-initiated-logout in Chromium,
 * where the provider's page must load the frontchannel_logout_uri, with `iss` and the session's
 * `sid`, before it sends the browser to the post_logout_redirect_uri.
 */
export class OidccFrontChannelRpInitiatedLogout extends OidccRpInitiatedLogout<ChromiumSuiteBrowser> {
  constructor(context: ModuleContext<ChromiumSuiteBrowser>) {
    super(context, () => {}, 'redirect-with-state');
  }

  protected override async verifyLogoutNotifications(): Promise<void> {
    const { run, state } = this;
    const framed = await eventually(() =>
      this.browser.framed.find((request) => request.url.href.startsWith(FRONTCHANNEL_LOGOUT_URI)),
    );
    if (!framed) return run.abort('the frontchannel_logout_uri was never loaded');
    const check = { query: framed.query, state };
    run.check('WARNING', bcl.CheckForUnexpectedParametersInFrontchannelLogoutRequest, check);
    run.check('FAILURE', bcl.ValidateFrontchannelLogoutIss, check);
    run.check('FAILURE', bcl.CheckIdTokenSidMatchesFrontChannelLogoutRequest, check);
  }
}
