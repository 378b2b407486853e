import * as authz from '../../conditions/authorization-response.js';
import * as fapi from '../../conditions/fapi2.js';
import { type ProviderPage, SuiteBrowser } from '../../support/browser.js';
import { condition, fail } from '../../support/checks.js';
import { Fapi2ServerTest } from '../../support/fapi2-server-test.js';
import type { HttpAnswer } from '../../support/state.js';
import { errorPage } from '../error-flows.js';

/** The FAPI 2.0 modules of pushed authorization requests (RFC 9126). */

const EnsureInvalidRequestUriError = authz.errorIsOneOf('EnsureInvalidRequestUriError', [
  'invalid_request_uri',
]);

/**
 * The modules that send the browser with a request_uri the provider must not take (used,
 * expired, another client's): an error page, or the error sent back.
 */
abstract class UnusableRequestUri extends Fapi2ServerTest {
  protected readonly placeholder = 'ExpectInvalidRequestUriErrorPage';
  protected errorCheck = EnsureInvalidRequestUriError;

  protected async expectRefused(url: URL): Promise<void> {
    const arrival = await this.browser.open(url);
    if (arrival.kind === 'page') this.run.check('FAILURE', errorPage(this.placeholder), arrival);
    else {
      this.state.callback = arrival;
      this.state.response = arrival.query;
      this.run.check('FAILURE', this.errorCheck, this.state);
    }
    this.run.finish();
  }
}

/** fapi2-security-profile-final-par-attempt-reuse-request_uri: a request_uri works once. */
export class Fapi2ParAttemptReuseRequestUri extends UnusableRequestUri {
  protected override async onPostAuthorizationFlowComplete(): Promise<void> {
    const arrival = await this.browser.open(this.authorizationRedirect());
    if (arrival.kind === 'page') {
      this.run.check('FAILURE', errorPage(this.placeholder), arrival);
    } else {
      this.state.response = arrival.query;
      if (arrival.query.error !== undefined)
        this.run.check('FAILURE', EnsureInvalidRequestUriError, this.state);
      else
        this.run.check('WARNING', authz.EnsureErrorFromAuthorizationEndpointResponse, this.state);
    }
    this.run.finish();
  }
}

/** fapi2-security-profile-final-par-attempt-to-use-expired-request_uri. */
export class Fapi2ParAttemptToUseExpiredRequestUri extends UnusableRequestUri {
  protected override async performParRedirectWithRequestUri(): Promise<void> {
    const expiresIn = Number(this.state.par?.json?.expires_in);
    if (expiresIn > 30 * 60) this.run.skip(`expires_in is ${expiresIn} seconds`);
    this.op.clock.advance(expiresIn + 1);
    await this.expectRefused(this.authorizationRedirect());
  }
}

/** fapi2-security-profile-final-par-attempt-to-use-request_uri-for-different-client. */
export class Fapi2ParRequestUriBoundToClient extends UnusableRequestUri {
  protected override errorCheck = authz.errorIsOneOf(
    'EnsureInvalidRequestInvalidRequestObjectOrInvalidRequestUriError',
    ['invalid_request', 'invalid_request_object', 'invalid_request_uri'],
  );

  protected override async performParRedirectWithRequestUri(): Promise<void> {
    const url = this.authorizationRedirect();
    url.searchParams.set('client_id', this.op.clients.second.id);
    await this.expectRefused(url);
  }
}

/**
 * fapi2-security-profile-final-par-ensure-reused-request-uri-prior-to-auth-completion-succeeds:
 * the browser opens the authorization URL, leaves the login page unanswered, and opens the same
 * URL again, signing in this time. FAPI 2.0 SP §5.3.2.2 note 3 recommends accepting it; a refusal
 * is a warning, with the screenshot of the error the suite asks for (here the error page).
 */
export class Fapi2ParReusedRequestUriBeforeAuthentication extends Fapi2ServerTest {
  private readonly fresh: SuiteBrowser;

  constructor(context: ConstructorParameters<typeof Fapi2ServerTest>[0]) {
    super(context);
    this.fresh = new SuiteBrowser(context.op);
    this.browser = this.fresh;
  }

  protected override async performParRedirectWithRequestUri(): Promise<void> {
    const url = this.authorizationRedirect();
    this.fresh.stopAtLogin = true;
    const first = await this.fresh.open(url);
    this.run.require(ExpectLoginPage, first);
    this.fresh.stopAtLogin = false;
    await this.performRedirect(url);
  }

  protected override async handleProviderPage(page: ProviderPage): Promise<void> {
    this.run.check('WARNING', fapi.WarningAboutRequestUriError, page);
    this.run.check('FAILURE', errorPage('ExpectLoginPage'), page);
    this.run.finish();
  }

  protected override async onAuthorizationCallbackResponse(): Promise<void> {
    const { run, state } = this;
    if (state.response.error === undefined) return super.onAuthorizationCallbackResponse();
    run.check('WARNING', fapi.WarningAboutRequestUriError, state);
    this.checkAuthorizationErrorResponse();
    run.check('FAILURE', EnsureInvalidRequestUriError, state);
    run.finish();
  }
}

/** The first visit showed the login page (what the suite's placeholder asks for). */
const ExpectLoginPage = condition('ExpectLoginPage', (arrival: { kind: string }) => {
  const page = arrival as ProviderPage;
  if (
    arrival.kind !== 'page' ||
    !page.forms.some((form) => form.fields.some(([f]) => f === 'password'))
  )
    fail('the first visit did not stop at the login page');
});

/** fapi2-security-profile-final-par-authorization-request-containing-request_uri-form-param. */
export class Fapi2ParRejectRequestUriInForm extends Fapi2ServerTest {
  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    request.request_uri = 'urn:ietf:params:oauth:request_uri:bad';
  }

  protected override async processParResponse(answer: HttpAnswer): Promise<void> {
    this.run.check(
      'FAILURE',
      fapi.EnsurePARInvalidRequestOrInvalidRequestObjectOrRequestUriNotSupportedError,
      answer,
    );
    this.run.finish();
  }
}

/** fapi2-security-profile-final-par-attempt-invalid-http-method: PAR takes POST only. */
export class Fapi2ParRejectInvalidHttpVerb extends Fapi2ServerTest {
  protected override parMethod = 'PUT';

  protected override async processParResponse(answer: HttpAnswer): Promise<void> {
    this.run.check('FAILURE', fapi.EnsureParHTTPError, answer);
    this.run.finish();
  }
}

/**
 * fapi2-security-profile-final-par-without-duplicate-parameters: the browser carries client_id
 * and request_uri only, which is what every module here sends.
 */
export class Fapi2ParWithoutDuplicateParameters extends Fapi2ServerTest {}
