import * as authz from '../conditions/authorization-response.js';
import * as tok from '../conditions/token-and-userinfo.js';
import type { Arrival, Callback, ProviderPage } from '../support/browser.js';
import { condition, fail } from '../support/checks.js';
import { callUserinfo } from '../support/http.js';
import { type ModuleContext, ServerTest } from '../support/server-test.js';

/**
 * The modules where the provider must refuse: with an error sent to the redirect URI, or with an
 * error page shown to the user (the suite's "placeholder", a screenshot a reviewer checks; here
 * the page the browser stopped at: an HTML answer with a 4xx status and no way on).
 */

/** Expect…ErrorPage: what a reviewer would accept as the screenshot of an error. */
export const errorPage = (name: string) =>
  condition(name, (page: ProviderPage) => {
    if (page.status < 400 || page.status > 499)
      fail(`the page answered ${page.status}, not an error`);
    if (page.forms.some((form) => form.fields.some(([field]) => field === 'password'))) {
      fail('a login page instead of an error');
    }
  });

/** AbstractOIDCCServerTestExpectingAuthorizationEndpointPlaceholderOrCallback. */
abstract class PlaceholderOrCallback extends ServerTest {
  protected abstract readonly placeholder: string;

  protected override async handleArrival(arrival: Arrival): Promise<void> {
    if (arrival.kind === 'page') this.run.check('FAILURE', errorPage(this.placeholder), arrival);
    else await this.processCallback(arrival);
  }
}

/** oidcc-response-type-missing. */
export class OidccResponseTypeMissing extends PlaceholderOrCallback {
  protected readonly placeholder = 'ExpectResponseTypeMissingErrorPage';

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    delete request.response_type;
  }

  protected override async processCallback(callback: Callback): Promise<void> {
    const { state, run } = this;
    state.callback = callback;
    if (this.formPost) {
      state.response = callback.body;
      run.check('FAILURE', authz.CheckCallbackHttpMethodIsPost, state);
      run.check('FAILURE', authz.CheckCallbackContentTypeIsFormUrlEncoded, state);
      run.check('FAILURE', authz.RejectAuthCodeInUrlQuery, state);
      run.check('FAILURE', authz.RejectErrorInUrlQuery, state);
    } else {
      // Without a response_type, the response can only be in the query.
      state.response = callback.query;
    }
    this.performGenericAuthorizationEndpointErrorResponseValidation();
    run.check(
      'FAILURE',
      authz.CheckErrorFromAuthorizationEndpointErrorInvalidRequestOrUnsupportedResponseType,
      state,
    );
  }
}

/** oidcc-ensure-request-without-nonce-fails (response types with an ID token in the front channel). */
export class OidccNonceRequiredFails extends PlaceholderOrCallback {
  protected readonly placeholder = 'ExpectRequestMissingNonceErrorPage';

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    delete request.nonce;
  }

  protected override async onAuthorizationCallbackResponse(): Promise<void> {
    this.performGenericAuthorizationEndpointErrorResponseValidation();
    this.run.check(
      'FAILURE',
      authz.CheckErrorFromAuthorizationEndpointErrorInvalidRequest,
      this.state,
    );
  }
}

/** oidcc-ensure-request-without-nonce-succeeds-for-code-flow: a code, and no more. */
export class OidccNonceOptionalForCode extends ServerTest {
  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    delete request.nonce;
  }

  protected override async performPostAuthorizationFlow(): Promise<void> {}
}

/** oidcc-prompt-none-not-logged-in: an error that says the user must interact. */
export class OidccPromptNoneNotLoggedIn extends ServerTest {
  override stateLength = 128;

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    request.prompt = 'none';
  }

  protected override async onAuthorizationCallbackResponse(): Promise<void> {
    this.performGenericAuthorizationEndpointErrorResponseValidation();
    this.run.check(
      'FAILURE',
      authz.CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface,
      this.state,
    );
  }
}

/** oidcc-ensure-registered-redirect-uri: an unregistered redirect URI is never used. */
export class OidccUnregisteredRedirectUri extends PlaceholderOrCallback {
  protected readonly placeholder = 'ExpectRedirectUriErrorPage';

  protected override redirectUri(): string {
    // CreateBadRedirectUriByAppending
    return `${super.redirectUri()}/${Math.random().toString(36).slice(2, 12)}`;
  }

  protected override async processCallback(callback: Callback): Promise<void> {
    this.run.abort(
      callback.url.href.startsWith(this.state.redirectUri)
        ? 'the server redirected to the unregistered redirect URI'
        : 'the server called the registered redirect URI though another was requested',
    );
  }
}

/** oidcc-codereuse and oidcc-codereuse-30seconds (AbstractOIDCCAuthCodeReuse). */
export class OidccCodeReuse extends ServerTest {
  constructor(
    context: ModuleContext,
    private readonly delaySeconds: 0 | 30,
  ) {
    super(context);
  }

  protected override async onPostAuthorizationFlowComplete(): Promise<void> {
    const { state, run } = this;
    const firstAccessToken = state.accessToken ?? '';
    this.op.clock.advance(this.delaySeconds);
    await this.callTokenEndpoint(this.authorizationCodeRequest());
    if (this.delaySeconds === 0 && state.token?.status === 200) {
      run.check('WARNING', ServerAllowedReusingAuthorizationCode, state);
      return;
    }
    run.check('FAILURE', tok.tokenStatusIs(400), state);
    run.check('FAILURE', tok.CheckTokenEndpointReturnedJsonContentType, state);
    run.check('FAILURE', tok.CheckErrorFromTokenEndpointResponseErrorInvalidGrant, state);
    run.check('FAILURE', tok.ValidateErrorFromTokenEndpointResponseError, state);
    run.check('WARNING', tok.tokenErrorFields.containsCrLfTab, state);
    run.check('FAILURE', tok.tokenErrorFields.description, state);
    run.check('FAILURE', tok.tokenErrorFields.uri, state);
    if (this.delaySeconds === 30) {
      // RFC 6749 §4.1.2: the tokens issued for a replayed code SHOULD be revoked.
      const answer = await callUserinfo(
        this.op,
        state.server.userinfo_endpoint,
        firstAccessToken,
        'get',
      );
      run.check('WARNING', EnsureHttpStatusCodeIs4xx, answer.status);
    }
  }
}

const ServerAllowedReusingAuthorizationCode = condition(
  'ServerAllowedReusingAuthorizationCode',
  () => fail('the server accepted the same code twice'),
);

const EnsureHttpStatusCodeIs4xx = condition('EnsureHttpStatusCodeIs4xx', (status: number) => {
  if (status < 400 || status > 499) fail(`the first access token still works (${status})`);
});
