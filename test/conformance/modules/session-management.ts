import * as disc from '../conditions/discovery.js';
import { condition, fail } from '../support/checks.js';
import type { ChromiumSuiteBrowser } from '../support/chromium-browser.js';
import { POST_LOGOUT_REDIRECT_URI } from '../support/op.js';
import { ServerTest } from '../support/server-test.js';
import type { FlowState } from '../support/state.js';
import {
  CheckForUnexpectedParametersInPostLogoutRedirect,
  CheckPostLogoutState,
  endSessionState,
} from './logout.js';

/**
 * oidcc-session-management-rp-initiated-logout: sign in, ask the OP's check_session_iframe about
 * the session (it must say "unchanged"), log out through end_session_endpoint, ask again (it must
 * say "changed"). In Chromium, since the answer comes from the iframe's script.
 */

const ExtractSessionStateFromAuthorizationResponse = condition(
  'ExtractSessionStateFromAuthorizationResponse',
  (state: FlowState) => {
    if (!state.response.session_state) fail('no session_state in the authorization response');
  },
);

const sessionResultIs = (name: string, expected: 'unchanged' | 'changed') =>
  condition(name, (answer: string) => {
    if (answer !== expected)
      fail(`the check_session_iframe answered "${answer}", not "${expected}"`);
  });

export class OidccSessionManagementRpInitiatedLogout extends ServerTest<ChromiumSuiteBrowser> {
  override stateLength = 128;
  readonly #endSessionState = endSessionState();

  protected override onConfigure(): void {
    const discovery = {
      url: this.op.discoveryUrl,
      answer: undefined as never,
      server: this.state.server,
    };
    this.run.require(disc.CheckDiscCheckSessionIframe, discovery);
  }

  private async sessionStatus(): Promise<string> {
    const { state, run } = this;
    run.require(ExtractSessionStateFromAuthorizationResponse, state);
    return this.browser.sessionStatus(
      String(state.server.check_session_iframe),
      state.client.id,
      state.response.session_state ?? '',
    );
  }

  protected override async onPostAuthorizationFlowComplete(): Promise<void> {
    const { state, run } = this;
    run.check(
      'FAILURE',
      sessionResultIs('CheckSessionResultIsUnchanged', 'unchanged'),
      await this.sessionStatus(),
    );
    const url = new URL(String(state.server.end_session_endpoint));
    url.searchParams.set('id_token_hint', state.idToken?.value ?? '');
    url.searchParams.set('post_logout_redirect_uri', POST_LOGOUT_REDIRECT_URI);
    url.searchParams.set('state', this.#endSessionState);
    const back = await this.browser.open(url);
    if (back.kind !== 'callback' || !back.url.href.startsWith(POST_LOGOUT_REDIRECT_URI)) {
      return run.abort('the browser never came back to the post_logout_redirect_uri');
    }
    run.check('FAILURE', CheckPostLogoutState, { callback: back, expected: this.#endSessionState });
    run.check('WARNING', CheckForUnexpectedParametersInPostLogoutRedirect, back);
    run.check(
      'FAILURE',
      sessionResultIs('CheckSecondSessionResultIsChanged', 'changed'),
      await this.sessionStatus(),
    );
  }
}
