import * as authz from '../../conditions/authorization-response.js';
import * as fapi from '../../conditions/fapi2.js';
import type { Callback } from '../../support/browser.js';
import { BAD_REDIRECT_URI } from '../../support/fapi2-op.js';
import type { Fapi2Context } from '../../support/fapi2-server-test.js';
import type { HttpAnswer } from '../../support/state.js';
import { Fapi2ParPlaceholderOrCallback, Fapi2PlaceholderOrCallback } from './expecting-error.js';

/** The FAPI 2.0 modules of authorization requests the provider must refuse. */

const EnsureInvalidRequestError = authz.errorIsOneOf('EnsureInvalidRequestError', [
  'invalid_request',
]);

/**
 * A refused request whose error came back to the client: the checks every module of this file
 * makes, then the module's own of the error code, and the module ends.
 */
abstract class RefusedRequest extends Fapi2ParPlaceholderOrCallback {
  protected override async onAuthorizationCallbackResponse(): Promise<void> {
    this.checkAuthorizationErrorResponse();
    this.checkError();
    this.run.finish();
  }

  protected abstract checkError(): void;
}

/**
 * fapi2-security-profile-final-plain-fapi-tolerate-unregistered-redirect-uri: a redirect_uri the
 * client never registered is refused at PAR or shown as an error; the client never hears back.
 */
export class Fapi2TolerateUnregisteredRedirectUri extends Fapi2ParPlaceholderOrCallback {
  protected readonly placeholder = 'ExpectRedirectUriErrorPage';

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    request.redirect_uri = BAD_REDIRECT_URI;
  }

  protected processParErrorResponse(answer: HttpAnswer): void {
    this.run.check('FAILURE', fapi.EnsurePARInvalidRequestOrInvalidRequestObjectError, answer);
  }

  protected override async processCallback(callback: Callback): Promise<void> {
    this.run.abort(`the provider redirected to ${callback.url.origin}${callback.url.pathname}`);
  }
}

/**
 * fapi2-security-profile-final-ensure-unsigned-authorization-request-without-using-par-fails:
 * the request sent straight to the authorization endpoint is refused (FAPI 2.0 SP §5.3.2.2-2).
 */
export class Fapi2UnsignedRequestWithoutParFails extends Fapi2PlaceholderOrCallback {
  protected readonly placeholder = 'ExpectAuthorizationRequestWithoutRequestObjectErrorPage';

  override async performAuthorizationFlow(): Promise<void> {
    this.createAuthorizationRequest();
    const url = new URL(String(this.state.server.authorization_endpoint));
    for (const [name, value] of Object.entries(this.state.request).sort())
      url.searchParams.append(name, String(value));
    await this.performRedirect(url);
  }

  protected override async onAuthorizationCallbackResponse(): Promise<void> {
    const { run, state } = this;
    this.checkErrorWithoutUnexpectedParameters();
    run.check('FAILURE', EnsureInvalidRequestError, state);
    run.finish();
  }
}

/** A request pushed without its redirect_uri (FAPI 2.0 SP §5.3.2.2-6). */
const withoutRedirectUri = (request: Record<string, unknown>) => {
  delete request.redirect_uri;
};

/**
 * fapi2-security-profile-final-ensure-redirect-uri-in-authorization-request: refused at PAR or
 * shown as an error (the suite's module goes on as usual should the provider take it).
 */
export class Fapi2RedirectUriInAuthorizationRequest extends Fapi2ParPlaceholderOrCallback {
  protected readonly placeholder = 'ExpectRedirectUriMissingErrorPage';

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    withoutRedirectUri(request);
  }

  protected processParErrorResponse(answer: HttpAnswer): void {
    this.run.check('FAILURE', fapi.EnsurePARInvalidRequestOrInvalidRequestObjectError, answer);
  }
}

/** fapi2-security-profile-final-ensure-request-object-without-redirect-uri-fails. */
export class Fapi2RequestObjectWithoutRedirectUriFails extends RefusedRequest {
  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    withoutRedirectUri(request);
  }

  protected processParErrorResponse(answer: HttpAnswer): void {
    this.run.check('FAILURE', fapi.EnsurePARInvalidRequestOrInvalidRequestObjectError, answer);
  }

  protected readonly placeholder = 'ExpectRequestObjectMissingRedirectUriErrorPage';

  protected checkError(): void {
    this.run.check(
      'FAILURE',
      authz.errorIsOneOf(
        'CheckErrorFromAuthorizationEndpointErrorInvalidRequestOrInvalidRequestObject',
        ['invalid_request', 'invalid_request_object'],
      ),
      this.state,
    );
  }
}

/**
 * fapi2-security-profile-final-ensure-response-type-{code-idtoken,token}-fails: only `code`
 * (FAPI 2.0 SP §5.3.2.2-1), refused at PAR or at the authorization endpoint without a code.
 */
export class Fapi2ResponseTypeFails extends RefusedRequest {
  protected readonly placeholder = 'ExpectResponseTypeErrorPage';

  constructor(
    context: Fapi2Context,
    private readonly responseType: 'code id_token' | 'token',
  ) {
    super(context);
  }

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    request.response_type = this.responseType;
  }

  protected processParErrorResponse(answer: HttpAnswer): void {
    this.run.check('FAILURE', fapi.EnsureHttpStatusCodeIs4xx, answer);
    this.run.check(
      'WARNING',
      fapi.EnsurePARUnsupportedResponseTypeOrInvalidRequestOrUnauthorizedClientError,
      answer,
    );
  }

  protected override async processCallback(callback: Callback): Promise<void> {
    const { run, state } = this;
    state.callback = callback;
    run.check('FAILURE', authz.RejectAuthCodeInUrlQuery, state);
    run.check('FAILURE', fapi.RejectAuthCodeInUrlFragment, state);
    // DetectWhetherErrorResponseIsInQueryOrFragment
    state.response = callback.fragment.error !== undefined ? callback.fragment : callback.query;
    await this.onAuthorizationCallbackResponse();
  }

  protected checkError(): void {
    this.run.check(
      'FAILURE',
      authz.errorIsOneOf('EnsureUnsupportedResponseTypeOrInvalidRequestError', [
        'unsupported_response_type',
        'invalid_request',
      ]),
      this.state,
    );
  }
}

/** The PKCE modules refused at PAR or at the authorization endpoint as invalid_request. */
abstract class PkceRefused extends Fapi2ParPlaceholderOrCallback {
  protected processParErrorResponse(answer: HttpAnswer): void {
    this.run.check('FAILURE', fapi.EnsurePARInvalidRequestError, answer);
  }

  protected override async onAuthorizationCallbackResponse(): Promise<void> {
    this.run.check('FAILURE', EnsureInvalidRequestError, this.state);
    this.run.finish();
  }
}

/** fapi2-security-profile-final-par-ensure-pkce-required (FAPI 2.0 SP §5.3.2.2-5). */
export class Fapi2PkceRequired extends PkceRefused {
  protected readonly placeholder = 'ExpectPkceMissingErrorPage';

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    delete request.code_challenge;
    delete request.code_challenge_method;
  }
}

/** fapi2-security-profile-final-par-plain-pkce-rejected: S256 only. */
export class Fapi2PlainPkceRejected extends PkceRefused {
  protected readonly placeholder = 'ExpectPlainPkceErrorPage';

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    request.code_challenge = this.state.codeVerifier;
    request.code_challenge_method = 'plain';
  }
}
