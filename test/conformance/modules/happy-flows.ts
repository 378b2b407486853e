import { createHash, randomBytes } from 'node:crypto';
import * as authz from '../conditions/authorization-response.js';
import * as idt from '../conditions/id-token.js';
import * as tok from '../conditions/token-and-userinfo.js';
import { condition, fail } from '../support/checks.js';
import { callUserinfo } from '../support/http.js';
import { USER } from '../support/op.js';
import { type ModuleContext, ServerTest } from '../support/server-test.js';
import { includesCode, includesIdToken, includesToken } from '../support/state.js';

/** The modules that run one successful authorization (OIDCCServerTest and its relatives). */

/** oidcc-server: the happy flow, with the hashes and the code's quality checked. */
export class OidccServer extends ServerTest {
  protected override performAuthorizationEndpointIdTokenValidation(): void {
    super.performAuthorizationEndpointIdTokenValidation();
    const { run, state } = this;
    if (
      run.check(
        includesToken(this.responseType) ? 'FAILURE' : 'INFO',
        idt.extractHash('at_hash'),
        state,
      )
    ) {
      run.check('FAILURE', idt.validateHash('at_hash'), state);
    }
    if (
      run.check(
        includesCode(this.responseType) ? 'FAILURE' : 'INFO',
        idt.extractHash('c_hash'),
        state,
      )
    ) {
      run.check('FAILURE', idt.validateHash('c_hash'), state);
    }
  }

  protected override additionalTokenEndpointResponseValidation(): void {
    super.additionalTokenEndpointResponseValidation();
    const { run, state } = this;
    run.check('WARNING', tok.ExtractExpiresInFromTokenEndpointResponse, state);
    if (run.check('INFO', idt.extractHash('at_hash'), state))
      run.check('FAILURE', idt.validateHash('at_hash'), state);
    if (run.check('INFO', idt.extractHash('c_hash'), state))
      run.check('FAILURE', idt.validateHash('c_hash'), state);
  }

  protected override performIdTokenValidation(): void {
    super.performIdTokenValidation();
    this.run.check('WARNING', idt.EnsureIdTokenDoesNotContainName, this.state);
  }

  protected override performAuthorizationCodeValidation(): void {
    this.run.check('FAILURE', authz.EnsureMinimumAuthorizationCodeLength, this.state);
    this.run.check('FAILURE', authz.EnsureMinimumAuthorizationCodeEntropy, this.state);
  }

  protected override async onPostAuthorizationFlowComplete(): Promise<void> {
    this.run.check('WARNING', idt.EnsureIdTokenDoesNotContainNonRequestedClaims, this.state);
  }
}

/** oidcc-server-client-secret-post: the same flow, the client authenticating by form fields. */
export class OidccServerClientSecretPost extends ServerTest {}

/** oidcc-idtoken-signature: the ID token names its key and is signed with RS256. */
export class OidccIdTokenSignature extends ServerTest {
  protected override performIdTokenValidation(): void {
    this.run.check('FAILURE', idt.EnsureIdTokenContainsKid, this.state);
    this.run.check('FAILURE', idt.EnsureIdTokenSignatureIsRS256, this.state);
    super.performIdTokenValidation();
  }
}

/** Support for the token in a POST body is optional: a refusal is only a warning. */
const BodyTokenNotSupported = condition(
  'UserInfoEndpointWithAccessTokenInBodyNotSupported',
  (status: number) => fail(`userinfo refused the access token in the body (${status})`),
);

/** oidcc-userinfo-get / -post-header / -post-body. */
export class OidccUserInfo extends ServerTest {
  constructor(
    context: ModuleContext,
    private readonly how: 'get' | 'post-header' | 'post-body',
  ) {
    super(context);
  }

  protected override async onPostAuthorizationFlowComplete(): Promise<void> {
    const { state, run } = this;
    state.userinfo = await callUserinfo(
      this.op,
      state.server.userinfo_endpoint,
      state.accessToken ?? '',
      this.how,
    );
    if (this.how === 'post-body' && (state.userinfo.status < 200 || state.userinfo.status > 299)) {
      run.check('WARNING', BodyTokenNotSupported, state.userinfo.status);
      return;
    }
    if (this.how !== 'post-body') run.check('FAILURE', tok.userinfoStatusIs200, state);
    run.check('FAILURE', tok.EnsureContentTypeJson, state);
    run.require(tok.ExtractUserInfoFromUserInfoEndpointResponse, state);
    run.check('FAILURE', tok.ValidateUserInfoStandardClaims, state);
    run.check('FAILURE', tok.EnsureUserInfoContainsSub, state);
    run.check('FAILURE', tok.EnsureUserInfoUpdatedAtValid, state);
    run.check(
      'FAILURE',
      tok.EnsureMemberValuesInClaimNameReferenceToMemberNamesInClaimSources,
      state,
    );
    if (includesIdToken(this.responseType)) {
      run.check('FAILURE', tok.sameSubAsIdToken('authorizationIdToken'), state);
      if (includesCode(this.responseType))
        run.check('FAILURE', tok.sameSubAsIdToken('tokenIdToken'), state);
    }
  }
}

/** AbstractOIDCCReturnedClaimsServerTest: the claims of the requested scopes come back. */
export class ReturnedClaimsTest extends ServerTest {
  constructor(
    context: ModuleContext,
    private readonly requestedScope = 'openid',
  ) {
    super(context);
  }

  protected override scope(): string {
    return this.requestedScope;
  }

  protected override onConfigure(): void {
    // OIDCCCheckScopesSupportedContainScopeTest: a scope the server does not list skips the module.
    const supported = (this.state.server.scopes_supported as string[] | undefined) ?? [];
    const missing = this.requestedScope.split(' ').filter((scope) => !supported.includes(scope));
    if (missing.length > 0) this.run.skip(`scopes_supported lacks ${missing.join(' ')}`);
  }

  protected override async onPostAuthorizationFlowComplete(): Promise<void> {
    const { state, run } = this;
    if (!includesCode(this.responseType) && !includesToken(this.responseType)) {
      this.validateIdTokenForResponseTypeIdToken();
      return;
    }
    state.userinfo = await callUserinfo(
      this.op,
      state.server.userinfo_endpoint,
      state.accessToken ?? '',
      'get',
    );
    run.check('FAILURE', tok.userinfoStatusIs200, state);
    run.require(tok.ExtractUserInfoFromUserInfoEndpointResponse, state);
    this.validateUserInfoResponse();
  }

  protected validateIdTokenForResponseTypeIdToken(): void {
    this.run.check('WARNING', idt.VerifyScopesReturnedInAuthorizationEndpointIdToken, this.state);
  }

  protected validateUserInfoResponse(): void {
    const { state, run } = this;
    run.check('FAILURE', tok.ValidateUserInfoStandardClaims, state);
    run.check('FAILURE', tok.EnsureUserInfoContainsSub, state);
    run.check('FAILURE', tok.EnsureUserInfoUpdatedAtValid, state);
    run.check(
      'FAILURE',
      tok.EnsureMemberValuesInClaimNameReferenceToMemberNamesInClaimSources,
      state,
    );
    if (includesIdToken(this.responseType))
      run.check('FAILURE', tok.sameSubAsIdToken('authorizationIdToken'), state);
    if (includesCode(this.responseType))
      run.check('FAILURE', tok.sameSubAsIdToken('tokenIdToken'), state);
    run.check('WARNING', tok.VerifyScopesReturnedInUserInfoClaims, state);
  }
}

/** oidcc-scope-email: the email in userinfo, and neither it nor the name in the ID token. */
export class OidccScopeEmail extends ReturnedClaimsTest {
  constructor(context: ModuleContext) {
    super(context, 'openid email');
  }

  protected override performIdTokenValidation(): void {
    super.performIdTokenValidation();
    this.run.check('WARNING', idt.EnsureIdTokenDoesNotContainName, this.state);
    if (includesCode(this.responseType) || includesToken(this.responseType)) {
      this.run.check('WARNING', idt.EnsureIdTokenDoesNotContainEmailForScopeEmail, this.state);
    }
  }

  protected override validateUserInfoResponse(): void {
    super.validateUserInfoResponse();
    this.run.check('WARNING', tok.EnsureUserInfoDoesNotContainName, this.state);
  }
}

/** oidcc-alternate-happy-flow: scope values reversed, parameters in reverse order. */
export class OidccAlternateHappyFlow extends OidccScopeEmail {
  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    request.scope = String(request.scope).split(' ').reverse().join(' ');
  }

  protected override performRedirect() {
    return this.browser.open(this.authorizationUrl('reversed'));
  }
}

/** A module that only adds parameters to an otherwise ordinary request. */
export class ExtraParametersTest extends ServerTest {
  constructor(
    context: ModuleContext,
    private readonly extra: (test: ServerTest) => Record<string, unknown>,
  ) {
    super(context);
  }

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    Object.assign(request, this.extra(this));
  }
}

/** oidcc-login-hint, with the configured login_hint (the suite's server.login_hint). */
export const loginHint = () => ({ login_hint: USER.username });

/** oidcc-ensure-request-with-acr-values-succeeds: acr_values_supported, or "1 2". */
export class OidccAcrValues extends ServerTest {
  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    const supported = this.state.server.acr_values_supported as string[] | undefined;
    request.acr_values = supported ? supported.join(' ') : '1 2';
  }

  protected override performIdTokenValidation(): void {
    super.performIdTokenValidation();
    this.run.check('WARNING', idt.ValidateIdTokenACRClaimAgainstAcrValuesRequest, this.state);
  }
}

/** oidcc-ensure-post-request-succeeds: the authorization request as a form POST. */
export class OidccPostRequest extends ServerTest {
  protected override performRedirect() {
    const url = new URL(String(this.state.server.authorization_endpoint));
    const form = Object.fromEntries(
      Object.entries(this.state.request).map(([key, value]) => [key, String(value)]),
    );
    return this.browser.open(url, form);
  }
}

/** oidcc-ensure-request-with-valid-pkce-succeeds: S256 challenge, then the verifier. */
export class OidccValidPkce extends ServerTest {
  readonly #verifier = randomBytes(32).toString('base64url');

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    request.code_challenge = createHash('sha256').update(this.#verifier).digest('base64url');
    request.code_challenge_method = 'S256';
  }

  protected override authorizationCodeRequest(): Record<string, string> {
    return { ...super.authorizationCodeRequest(), code_verifier: this.#verifier };
  }
}
