import * as idt from '../conditions/id-token.js';
import * as tok from '../conditions/token-and-userinfo.js';
import type { Arrival } from '../support/browser.js';
import { condition, fail } from '../support/checks.js';
import { ServerTest } from '../support/server-test.js';
import type { FlowState } from '../support/state.js';
import { errorPage } from './error-flows.js';
import { ReturnedClaimsTest } from './happy-flows.js';

/**
 * Modules of features OpenID Connect leaves optional: request objects, the claims parameter,
 * refresh tokens. A provider passes them by supporting the feature correctly, or by refusing it
 * the way the specifications say (then the module ends as skipped).
 */

const unsignedJwt = (claims: Record<string, unknown>) =>
  `${Buffer.from(JSON.stringify({ alg: 'none' })).toString('base64url')}.${Buffer.from(
    JSON.stringify(claims),
  ).toString('base64url')}.`;

/** Parameters that stay in the query beside a request object (OIDC Core §6.1, RFC 6749). */
const REQUIRED_DUPLICATES = ['response_type', 'client_id', 'scope', 'redirect_uri'];

const CheckDiscEndpointRequestParameterSupported = condition(
  'CheckDiscEndpointRequestParameterSupported',
  (state: FlowState) => {
    if (state.server.request_parameter_supported !== true)
      fail('request_parameter_supported is not true');
  },
);

/** AbstractOIDCCRequestObjectServerTest: the whole request as an unsigned object, by value. */
export class OidccUnsignedRequestObject extends ServerTest {
  protected override onConfigure(): void {
    const algorithms = this.state.server.request_object_signing_alg_values_supported;
    if (Array.isArray(algorithms) && !algorithms.includes('none')) {
      this.run.skip('request_object_signing_alg_values_supported lacks none');
    }
  }

  /** The query beside the object: what must be duplicated, and what the module changed. */
  protected queryBesideObject(): Record<string, unknown> {
    return Object.fromEntries(
      Object.entries(this.state.request).filter(([key]) => REQUIRED_DUPLICATES.includes(key)),
    );
  }

  protected override performRedirect(): Promise<Arrival> {
    const url = new URL(String(this.state.server.authorization_endpoint));
    const query = { ...this.queryBesideObject(), request: unsignedJwt(this.state.request) };
    for (const key of Object.keys(query).sort())
      url.searchParams.append(key, String(query[key as keyof typeof query]));
    return this.browser.open(url);
  }

  protected override async onAuthorizationCallbackResponse(): Promise<void> {
    if (this.state.response.error === 'request_not_supported') {
      this.run.skip('request_not_supported: the server does not take request objects');
    }
    this.run.check('WARNING', CheckDiscEndpointRequestParameterSupported, this.state);
    await super.onAuthorizationCallbackResponse();
  }
}

const EnsureOPDoesNotUseDefaultRedirectUriInCaseOfInvalidRedirectUri = condition(
  'EnsureOPDoesNotUseDefaultRedirectUriInCaseOfInvalidRedirectUri',
  () => fail('an invalid redirect_uri was answered at the registered one'),
);

/** oidcc-ensure-request-object-with-redirect-uri: the object's redirect_uri prevails, or an error page. */
export class OidccRequestObjectRedirectUri extends OidccUnsignedRequestObject {
  protected override queryBesideObject(): Record<string, unknown> {
    // AddInvalidRedirectUriToAuthorizationRequest: only the query's copy is wrong.
    return { ...super.queryBesideObject(), redirect_uri: `${this.state.redirectUri}/invalid` };
  }

  protected override async handleArrival(arrival: Arrival): Promise<void> {
    if (arrival.kind === 'page')
      this.run.check('FAILURE', errorPage('ExpectRedirectUriErrorPage'), arrival);
    else await this.processCallback(arrival);
  }

  protected override async onAuthorizationCallbackResponse(): Promise<void> {
    if (this.state.response.error === 'request_not_supported') {
      this.run.require(EnsureOPDoesNotUseDefaultRedirectUriInCaseOfInvalidRedirectUri, this.state);
    }
    await super.onAuthorizationCallbackResponse();
  }
}

/** oidcc-claims-essential: `name` asked for as essential, where the response type delivers claims. */
export class OidccClaimsEssential extends ReturnedClaimsTest {
  protected override onConfigure(): void {}

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    const target = this.responseType === 'id_token' ? 'id_token' : 'userinfo';
    request.claims = { [target]: { name: { essential: true } } };
  }

  protected override validateUserInfoResponse(): void {
    super.validateUserInfoResponse();
    this.run.check('WARNING', tok.EnsureUserInfoContainsName, this.state);
    this.run.check('WARNING', idt.EnsureIdTokenDoesNotContainName, this.state);
  }

  protected override validateIdTokenForResponseTypeIdToken(): void {
    super.validateIdTokenForResponseTypeIdToken();
    this.run.check('WARNING', idt.EnsureIdTokenContainsName, this.state);
  }
}
