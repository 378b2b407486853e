import * as fapi from '../../conditions/fapi2.js';
import * as tok from '../../conditions/token-and-userinfo.js';
import { condition, fail } from '../../support/checks.js';
import { Fapi2MultipleClientTest } from '../../support/fapi2-server-test.js';
import { type FlowState, parseJwt } from '../../support/state.js';
import {
  CompareIdTokenClaims,
  EnsureServerConfigurationSupportsRefreshToken,
} from '../refresh-token.js';

const CheckTokenTypeIsDpop = condition('CheckTokenTypeIsDpop', (state: FlowState) => {
  const type = state.token?.json?.token_type;
  if (typeof type !== 'string' || type.toLowerCase() !== 'dpop') fail(`token_type ${String(type)}`);
});

/**
 * fapi2-security-profile-final-refresh-token: each client refreshes (with a new DPoP key, as the
 * suite's RefreshTokenRequestSteps make one), a refresh without client authentication and one
 * without a DPoP proof are refused, and the second client's refresh token is refused to the
 * first. A rotated refresh token's predecessor must still work 30 s later (FAPI 2.0 SP
 * §5.3.2.1-9); a fapi2 realm does not rotate, which the suite notes and skips.
 */
export class Fapi2RefreshToken extends Fapi2MultipleClientTest {
  private refreshToken: string | undefined;

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    if (String(request.scope).split(' ').includes('offline_access')) request.prompt = 'consent';
  }

  protected override async exchangeAuthorizationCode(): Promise<void> {
    await super.exchangeAuthorizationCode();
    await this.sendRefreshTokenRequestAndCheckIdTokenClaims();
  }

  private async sendRefreshTokenRequestAndCheckIdTokenClaims(): Promise<void> {
    const { run, state } = this;
    this.refreshToken = state.token?.json?.refresh_token as string | undefined;
    if (!this.refreshToken) run.skip('no refresh token was issued');
    run.check('WARNING', EnsureServerConfigurationSupportsRefreshToken, state);
    run.check('FAILURE', tok.EnsureRefreshTokenContainsAllowedCharactersOnly, state);
    const previous = this.refreshToken;
    await this.refresh();
    if (this.refreshToken !== previous) {
      // Rotated: the predecessor must still work after 30 seconds (FAPI 2.0 SP §5.3.2.1-9).
      this.refreshToken = previous;
      this.op.clock.advance(30);
      await this.refresh();
    }
    if (!this.isSecondClient) await this.refusedRefreshes();
  }

  /** RefreshTokenRequestSteps. */
  private async refresh(): Promise<void> {
    const { run, state } = this;
    const first = state.idToken;
    this.op.clock.advance(1);
    await this.replaceDpopKey();
    const answer = await this.callTokenEndpoint(this.refreshRequest());
    run.check(
      'FAILURE',
      fapi.statusIs('CheckTokenEndpointHttpStatus200', (s) => s === 200),
      answer,
    );
    run.check('FAILURE', tok.CheckTokenEndpointReturnedJsonContentType, state);
    run.check('FAILURE', tok.CheckTokenEndpointCacheHeaders, state);
    run.require(tok.CheckIfTokenEndpointResponseError, state);
    run.require(tok.CheckForAccessTokenValue, state);
    state.accessToken = String(state.token?.json?.access_token);
    run.check('FAILURE', CheckTokenTypeIsDpop, state);
    run.check('FAILURE', tok.EnsureMinimumAccessTokenEntropy, state);
    run.check('FAILURE', tok.EnsureAccessTokenContainsAllowedCharactersOnly, state);
    run.check('WARNING', tok.ExtractExpiresInFromTokenEndpointResponse, state);
    if (state.token?.json?.expires_in !== undefined)
      run.check('FAILURE', tok.ValidateExpiresIn, state);
    const renewed = state.token?.json?.refresh_token;
    if (typeof renewed === 'string') {
      this.refreshToken = renewed;
      run.check('FAILURE', tok.EnsureMinimumRefreshTokenLength, state);
      run.check('FAILURE', tok.EnsureMinimumRefreshTokenEntropy, state);
    }
    const idToken = state.token?.json?.id_token;
    if (first && typeof idToken === 'string') {
      state.idToken = parseJwt(idToken);
      run.check('FAILURE', CompareIdTokenClaims, {
        first: first.claims,
        second: state.idToken.claims,
      });
    }
  }

  private refreshRequest(): Record<string, string> {
    return {
      grant_type: 'refresh_token',
      refresh_token: this.refreshToken ?? '',
      ...(this.isSecondClient ? {} : { scope: this.state.client.scope }),
    };
  }

  /** Without client authentication (RFC 6749 §6), then without a DPoP proof (RFC 9449 §5). */
  private async refusedRefreshes(): Promise<void> {
    const { run, state } = this;
    const request = this.refreshRequest();
    const unauthenticated = await this.callTokenEndpoint(request, { authenticate: false });
    run.check('FAILURE', fapi.CheckTokenEndpointHttpStatus400or401, unauthenticated);
    run.check('FAILURE', tok.CheckTokenEndpointReturnedJsonContentType, state);
    run.check(
      'FAILURE',
      fapi.CheckTokenEndpointReturnedInvalidClientGrantOrRequestError,
      unauthenticated,
    );
    const unproven = await this.callTokenEndpoint(request, { dpop: false });
    run.require(tok.ValidateErrorFromTokenEndpointResponseError, state);
    run.check('FAILURE', tok.tokenStatusIs(400), state);
    run.check('FAILURE', tok.CheckTokenEndpointReturnedJsonContentType, state);
    run.check(
      'FAILURE',
      fapi.CheckTokenEndpointReturnedInvalidRequestGrantOrDPopProofError,
      unproven,
    );
  }

  protected override async onPostAuthorizationFlowComplete(): Promise<void> {
    if (!this.isSecondClient) {
      this.refreshToken = undefined;
      return super.onPostAuthorizationFlowComplete();
    }
    const secondRefreshToken = this.refreshToken;
    await this.switchToClient1AndTryClient2AccessToken();
    // RefreshTokenRequestExpectingErrorSteps: the second client's refresh token, by the first.
    this.refreshToken = secondRefreshToken;
    await this.callTokenEndpoint(this.refreshRequest());
    const { run, state } = this;
    run.require(tok.ValidateErrorFromTokenEndpointResponseError, state);
    run.check('FAILURE', tok.tokenStatusIs(400), state);
    run.check('FAILURE', tok.CheckTokenEndpointReturnedJsonContentType, state);
    run.check('FAILURE', tok.CheckErrorFromTokenEndpointResponseErrorInvalidGrant, state);
  }
}
