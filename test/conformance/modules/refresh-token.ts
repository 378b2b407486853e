import * as tok from '../conditions/token-and-userinfo.js';
import { condition, fail } from '../support/checks.js';
import { CLIENTS, type SuiteClient } from '../support/op.js';
import { ServerTest } from '../support/server-test.js';
import { type FlowState, parseJwt } from '../support/state.js';

/**
 * oidcc-refresh-token (AbstractOIDCCMultipleClient): refresh works and returns consistent ID
 * tokens, for the suite's client and for a second client; a refresh token issued to the second
 * client is refused to the first.
 */

export const EnsureServerConfigurationSupportsRefreshToken = condition(
  'EnsureServerConfigurationSupportsRefreshToken',
  (state: FlowState) => {
    const grants = state.server.grant_types_supported;
    if (!Array.isArray(grants) || !grants.includes('refresh_token')) {
      fail('refresh tokens are issued but grant_types_supported lacks refresh_token');
    }
  },
);

/** CompareIdTokenClaims (OIDC Core §12.2). */
export const CompareIdTokenClaims = condition(
  'CompareIdTokenClaims',
  ({ first, second }: { first: Record<string, unknown>; second: Record<string, unknown> }) => {
    for (const claim of ['iss', 'sub']) {
      if (first[claim] === undefined || first[claim] !== second[claim]) fail(`${claim} differs`);
    }
    if (first.iat === undefined || second.iat === undefined) fail('an iat is missing');
    if (first.iat === second.iat) fail('the refreshed ID token has the same iat');
    const audiences = (aud: unknown) => JSON.stringify([aud].flat().sort());
    if (audiences(first.aud) !== audiences(second.aud)) fail('aud differs');
    if (second.auth_time !== undefined && second.auth_time !== first.auth_time)
      fail('auth_time differs');
    if (first.azp === undefined && second.azp !== undefined) fail('azp appeared');
    if (first.azp !== second.azp) fail('azp differs');
  },
);

export class OidccRefreshToken extends ServerTest {
  #secondClient = false;
  #refreshToken: string | undefined;

  protected override client(): SuiteClient {
    return this.#secondClient ? CLIENTS.second : super.client();
  }

  protected override scope(): string {
    const supported = (this.state.server.scopes_supported as string[] | undefined) ?? [];
    return supported.includes('offline_access') ? 'openid offline_access' : 'openid';
  }

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    if (String(request.scope).includes('offline_access')) request.prompt = 'consent';
  }

  protected override async performPostAuthorizationFlow(): Promise<void> {
    const { state, run } = this;
    await this.requestAuthorizationCode();
    const first = state.idToken;
    this.#refreshToken = state.token?.json?.refresh_token as string | undefined;
    if (!this.#refreshToken) {
      run.skip('no refresh token was issued');
    }
    run.check('WARNING', EnsureServerConfigurationSupportsRefreshToken, state);
    run.check('FAILURE', tok.EnsureRefreshTokenContainsAllowedCharactersOnly, state);
    await this.refresh();
    const second = state.token?.json?.id_token;
    if (first && typeof second === 'string') {
      run.check('FAILURE', CompareIdTokenClaims, {
        first: first.claims,
        second: parseJwt(second).claims,
      });
    }
    await this.requestProtectedResource();
    await this.onPostAuthorizationFlowComplete();
  }

  /** RefreshTokenRequestSteps. */
  private async refresh(): Promise<void> {
    const { state, run } = this;
    this.op.clock.advance(1); // WaitForOneSecond, so the iat values differ
    await this.callTokenEndpoint(this.refreshRequest());
    run.check('FAILURE', tok.tokenStatusIs(200), state);
    run.check('FAILURE', tok.CheckTokenEndpointReturnedJsonContentType, state);
    run.check('FAILURE', tok.CheckTokenEndpointCacheHeaders, state);
    run.require(tok.CheckIfTokenEndpointResponseError, state);
    run.require(tok.CheckForAccessTokenValue, state);
    state.accessToken = String(state.token?.json?.access_token);
    run.check('FAILURE', tok.CheckTokenTypeIsBearer, state);
    run.check('FAILURE', tok.EnsureMinimumAccessTokenEntropy, state);
    run.check('FAILURE', tok.EnsureAccessTokenContainsAllowedCharactersOnly, state);
    run.check('WARNING', tok.ExtractExpiresInFromTokenEndpointResponse, state);
    run.check('FAILURE', tok.ValidateExpiresIn, state);
    const renewed = state.token?.json?.refresh_token;
    if (typeof renewed === 'string') {
      this.#refreshToken = renewed;
      run.check('FAILURE', tok.EnsureMinimumRefreshTokenLength, state);
      run.check('FAILURE', tok.EnsureMinimumRefreshTokenEntropy, state);
    }
  }

  private refreshRequest(): Record<string, string> {
    return {
      grant_type: 'refresh_token',
      refresh_token: this.#refreshToken ?? '',
      ...(this.#secondClient ? {} : { scope: this.scope() }),
    };
  }

  protected override async onPostAuthorizationFlowComplete(): Promise<void> {
    if (this.#secondClient) return this.secondClientTests();
    this.#secondClient = true;
    this.nonceLength = 43;
    this.state.client = this.client();
    // The same browser: the user is signed in, and is asked only to consent for the new client.
    await this.performAuthorizationFlow();
  }

  /** RefreshTokenRequestExpectingErrorSteps: the second client's refresh token, sent by the first. */
  private async secondClientTests(): Promise<void> {
    const { state, run } = this;
    this.#secondClient = false;
    state.client = this.client();
    await this.callTokenEndpoint(this.refreshRequest());
    run.require(tok.ValidateErrorFromTokenEndpointResponseError, state);
    run.check('FAILURE', tok.tokenStatusIs(400), state);
    run.check('FAILURE', tok.CheckTokenEndpointReturnedJsonContentType, state);
    run.check('FAILURE', tok.CheckErrorFromTokenEndpointResponseErrorInvalidGrant, state);
  }
}
