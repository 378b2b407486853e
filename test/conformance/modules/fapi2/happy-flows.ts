import * as authz from '../../conditions/authorization-response.js';
import * as fapi from '../../conditions/fapi2.js';
import * as idt from '../../conditions/id-token.js';
import { condition, fail } from '../../support/checks.js';
import { FAPI2_REALM } from '../../support/fapi2-op.js';
import { Fapi2MultipleClientTest, Fapi2ServerTest } from '../../support/fapi2-server-test.js';
import { suiteRandom } from '../../support/server-test.js';
import type { HttpAnswer } from '../../support/state.js';
import { Fapi2ParPlaceholderOrCallback, Fapi2PlaceholderOrCallback } from './expecting-error.js';

/** The FAPI 2.0 modules of well-behaved clients, and those a server may answer either way. */

/** DisallowAccessTokenInQuery: a token in the URL's query alone must be refused. */
const DisallowAccessTokenInQuery = condition('DisallowAccessTokenInQuery', (answer: HttpAnswer) => {
  if (![400, 401, 414].includes(answer.status))
    fail(`the resource answered ${answer.status} to a token in the query`);
});

/** fapi2-security-profile-final-happy-flow. */
export class Fapi2HappyFlow extends Fapi2MultipleClientTest {
  override async performAuthorizationFlow(): Promise<void> {
    if (this.isSecondClient) {
      this.nonceLength = 43;
      // The second client binds its code to a new DPoP key by dpop_jkt (RFC 9449 §10).
      await this.replaceDpopKey();
    }
    await super.performAuthorizationFlow();
  }

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    const key = this.dpopKeys.get(this.state.client.id);
    if (this.isSecondClient && key) request.dpop_jkt = key.jkt;
  }

  protected override async requestProtectedResource(): Promise<void> {
    await super.requestProtectedResource();
    if (!this.isSecondClient) await this.performAdditionalResourceEndpointTests();
  }

  /** The token only in the query; then other Accept headers, each answered. */
  private async performAdditionalResourceEndpointTests(): Promise<void> {
    const token = this.state.accessToken ?? '';
    const inQuery = await this.callProtectedResource({ query: { access_token: token } });
    this.run.check('FAILURE', DisallowAccessTokenInQuery, inQuery);
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await this.callProtectedResource();
      this.run.check('FAILURE', fapi.EnsureHttpStatusCodeIs200or201, answer);
    }
  }

  protected override async onPostAuthorizationFlowComplete(): Promise<void> {
    if (!this.isSecondClient)
      this.run.check('WARNING', idt.EnsureIdTokenDoesNotContainNonRequestedClaims, this.state);
    await super.onPostAuthorizationFlowComplete();
  }
}

/**
 * fapi2-security-profile-final-user-rejects-authentication: the user refuses, and the client
 * hears access_denied. The suite asks the tester to clear what would let the user skip the
 * question; a Gatehouse user who consented before is asked again once the grant is withdrawn.
 */
export class Fapi2UserRejectsAuthentication extends Fapi2MultipleClientTest {
  protected override stateLength = 128;

  override async performAuthorizationFlow(): Promise<void> {
    await this.op.server.provider.grants.revoke(FAPI2_REALM, this.op.sub, this.state.client.id);
    this.browser.decision = 'deny';
    try {
      await super.performAuthorizationFlow();
    } finally {
      this.browser.decision = 'allow';
    }
  }

  protected override async onAuthorizationCallbackResponse(): Promise<void> {
    const { run, state } = this;
    this.checkAuthorizationErrorResponse();
    run.check('FAILURE', ExpectAccessDenied, state);
    if (!this.isSecondClient) {
      this.switchToSecondClient();
      return this.performAuthorizationFlow();
    }
    run.require(authz.CheckMatchingCallbackParameters, state);
    run.finish();
  }
}

const ExpectAccessDenied = authz.errorIsOneOf(
  'ExpectAccessDeniedErrorFromAuthorizationEndpointDueToUserRejectingRequest',
  ['access_denied'],
);

/** AbstractFAPI2SPFinalEnsureRequestObjectWithoutState. */
class WithoutState extends Fapi2PlaceholderOrCallback {
  protected readonly placeholder = 'ExpectRequestObjectMissingStateErrorPage';

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    delete request.state;
  }

  protected override async onAuthorizationCallbackResponse(): Promise<void> {
    const { run, state } = this;
    if (state.response.error === undefined) {
      run.require(authz.CheckMatchingCallbackParameters, state);
      run.require(authz.CheckIfAuthorizationEndpointError, state);
      run.check('FAILURE', fapi.VerifyNoStateInAuthorizationResponse, state);
      run.require(authz.ExtractAuthorizationCodeFromAuthorizationResponse, state);
      this.checkAuthorizationCode();
      return this.performPostAuthorizationFlow();
    }
    if (state.response.state !== undefined)
      run.check('FAILURE', authz.CheckStateInAuthorizationResponse, state);
    this.checkErrorWithoutUnexpectedParameters();
    run.check(
      'FAILURE',
      authz.errorIsOneOf(
        'EnsureInvalidRequestInvalidRequestObjectInvalidRequestUriOrAccessDeniedError',
        ['invalid_request', 'invalid_request_object', 'invalid_request_uri', 'access_denied'],
      ),
      state,
    );
    run.finish();
  }
}

/** fapi2-security-profile-final-ensure-authorization-request-without-state-success. */
export class Fapi2WithoutStateSuccess extends WithoutState {}

/**
 * fapi2-security-profile-final-state-only-outside-request-object-not-used: a state beside the
 * request_uri is not the request's, and must not come back.
 */
export class Fapi2StateOnlyOutsideRequestObjectNotUsed extends WithoutState {
  protected override async performParRedirectWithRequestUri(): Promise<void> {
    await this.performRedirect(this.authorizationRedirect({ state: suiteRandom(10) }));
  }
}

/** fapi2-security-profile-final-ensure-authorization-request-without-nonce-success. */
export class Fapi2WithoutNonceSuccess extends Fapi2ServerTest {
  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    delete request.nonce;
  }
}

/** fapi2-security-profile-final-ensure-authorization-request-with-64-char-nonce-success. */
export class Fapi2With64CharNonceSuccess extends Fapi2ServerTest {
  protected override nonceLength = 64;
}

/** fapi2-security-profile-final-ensure-other-scope-order-succeeds. */
export class Fapi2OtherScopeOrderSucceeds extends Fapi2ServerTest {
  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    request.scope = String(request.scope).split(' ').reverse().join(' ');
  }
}

/**
 * fapi2-security-profile-final-access-token-type-header-case-sensitivity: the token type is a
 * case-insensitive scheme (RFC 9110 §11.1), so `dPoP` must work as `DPoP` does.
 */
export class Fapi2AccessTokenTypeHeaderCaseSensitivity extends Fapi2ServerTest {
  protected override async requestProtectedResource(): Promise<void> {
    const answer = await this.callProtectedResource({ scheme: invertCase('DPoP') });
    this.run.check('FAILURE', fapi.EnsureHttpStatusCodeIs200or201, answer);
    this.run.check('FAILURE', fapi.CheckForDateHeaderInResourceResponse, answer);
  }
}

const invertCase = (value: string) =>
  [...value].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

/** The long nonce and long state modules: accepted, or refused as invalid_request. */
abstract class LongValue extends Fapi2ParPlaceholderOrCallback {
  protected processParErrorResponse(answer: HttpAnswer): void {
    this.run.check('FAILURE', fapi.EnsurePARInvalidRequestError, answer);
  }

  protected override async onAuthorizationCallbackResponse(): Promise<void> {
    const { run, state } = this;
    if (state.response.error === undefined) return super.onAuthorizationCallbackResponse();
    this.checkAuthorizationErrorResponse();
    run.check(
      'WARNING',
      authz.errorIsOneOf('EnsureInvalidRequestError', ['invalid_request']),
      state,
    );
    this.onRefused();
    run.finish();
  }

  protected onRefused(): void {}
}

/** fapi2-security-profile-final-ensure-authorization-request-with-long-nonce (384 characters). */
export class Fapi2LongNonce extends LongValue {
  protected readonly placeholder = 'ExpectRequestObjectWithLongNonceErrorPage';
  protected override nonceLength = 384;
}

/** fapi2-security-profile-final-ensure-authorization-request-with-long-state (1000 characters). */
export class Fapi2LongState extends LongValue {
  protected readonly placeholder = 'ExpectRequestObjectWithLongStateErrorPage';
  protected override stateLength = 1000;

  protected override onRefused(): void {
    this.run.check('WARNING', fapi.WarningAboutRejectingLongState, this.state);
  }
}

/**
 * fapi2-security-profile-final-ensure-different-{nonce,state}-inside-and-outside-request-object:
 * a value sent beside the request_uri that differs from the pushed one is ignored, or refused.
 */
export class Fapi2DifferentValueOutside extends Fapi2PlaceholderOrCallback {
  constructor(
    context: ConstructorParameters<typeof Fapi2ServerTest>[0],
    private readonly parameter: 'nonce' | 'state',
  ) {
    super(context);
  }

  protected get placeholder(): string {
    return this.parameter === 'nonce'
      ? 'ExpectRequestDifferentNonceInsideAndOutsideErrorPage'
      : 'ExpectRequestDifferentStateInsideAndOutsideErrorPage';
  }

  protected override async performParRedirectWithRequestUri(): Promise<void> {
    await this.performRedirect(this.authorizationRedirect({ [this.parameter]: suiteRandom(10) }));
  }

  protected override async onAuthorizationCallbackResponse(): Promise<void> {
    const { run, state } = this;
    if (state.response.error === undefined) return super.onAuthorizationCallbackResponse();
    this.checkAuthorizationErrorResponse();
    run.check(
      'FAILURE',
      authz.errorIsOneOf('EnsureInvalidRequestError', ['invalid_request']),
      state,
    );
    run.finish();
  }
}
