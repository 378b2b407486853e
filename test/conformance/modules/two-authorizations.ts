import { condition, fail } from '../support/checks.js';
import { type ModuleContext, ServerTest } from '../support/server-test.js';
import type { FlowState } from '../support/state.js';

/**
 * The modules that authorize twice in the same browser: prompt=login and max_age=1 must make
 * the user sign in again; prompt=none, max_age=10000 and an id_token_hint must not.
 */

const firstAndSecond = (state: FlowState) => {
  const first = state.firstIdToken?.claims;
  const second = state.idToken?.claims;
  if (!first || !second) fail('an ID token is missing');
  return { first, second };
};

const CheckSecondIdTokenAuthTimeIsLaterIfPresent = condition(
  'CheckSecondIdTokenAuthTimeIsLaterIfPresent',
  (state: FlowState) => {
    const { first, second } = firstAndSecond(state);
    if (first.auth_time === undefined || second.auth_time === undefined) return;
    if (first.auth_time === second.auth_time) fail('the second auth_time equals the first');
    if (Number(first.auth_time) > Number(second.auth_time)) fail('the second auth_time is earlier');
  },
);

const CheckIdTokenAuthTimeClaimsSameIfPresent = condition(
  'CheckIdTokenAuthTimeClaimsSameIfPresent',
  (state: FlowState) => {
    const { first, second } = firstAndSecond(state);
    if (first.auth_time === undefined || second.auth_time === undefined) return;
    if (first.auth_time !== second.auth_time) fail('the two auth_time claims differ');
  },
);

const CheckIdTokenSubConsistentForSecondAuthorization = condition(
  'CheckIdTokenSubConsistentForSecondAuthorization',
  (state: FlowState) => {
    const { first, second } = firstAndSecond(state);
    if (first.sub !== second.sub) fail('the two ID tokens name different subjects');
  },
);

const CheckIdTokenAuthTimeClaimPresentDueToMaxAge = condition(
  'CheckIdTokenAuthTimeClaimPresentDueToMaxAge',
  (state: FlowState) => {
    if (state.idToken?.claims.auth_time === undefined) fail('max_age was sent, no auth_time came');
  },
);

const CheckIdTokenAuthTimeIsRecentIfPresent = condition(
  'CheckIdTokenAuthTimeIsRecentIfPresent',
  (state: FlowState) => {
    const authTime = state.idToken?.claims.auth_time;
    if (authTime === undefined) return;
    if (Number(authTime) * 1000 < state.now - 5 * 60_000 - 1000) fail('auth_time is not recent');
  },
);

/** ExpectSecondLoginPage: the screenshot the suite asks for, as the browser's record. */
const ExpectSecondLoginPage = condition('ExpectSecondLoginPage', (loginPages: number) => {
  if (loginPages < 1) fail('the second authorization did not ask the user to sign in');
});

/** The first authorization's ID token is kept; then the second runs as the module says. */
abstract class TwoAuthorizations extends ServerTest {
  protected firstTime = true;
  /** Login pages the browser had shown when the second authorization started. */
  #loginPagesBefore = 0;

  /** Login pages shown during the second authorization. */
  protected get secondLogins(): number {
    return this.browser.loginPages - this.#loginPagesBefore;
  }

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    if (this.firstTime) this.customizeFirstRequest(request);
    else this.customizeSecondRequest(request);
  }

  protected customizeFirstRequest(_request: Record<string, unknown>): void {}
  protected abstract customizeSecondRequest(request: Record<string, unknown>): void;

  protected override async onPostAuthorizationFlowComplete(): Promise<void> {
    if (!this.firstTime) return this.afterSecondAuthorization();
    this.firstTime = false;
    const { state } = this;
    state.firstIdToken = state.idToken;
    this.validateFirstIdToken();
    for (const key of ['idToken', 'authorizationIdToken', 'tokenIdToken', 'accessToken'] as const) {
      state[key] = undefined;
    }
    await this.beforeSecondAuthorization();
    this.#loginPagesBefore = this.browser.loginPages;
    await this.performAuthorizationFlow();
  }

  protected validateFirstIdToken(): void {}
  protected async beforeSecondAuthorization(): Promise<void> {}
  protected abstract afterSecondAuthorization(): Promise<void> | void;
}

/** oidcc-prompt-login and oidcc-max-age-1: a second login, a later auth_time. */
export class OidccReauthentication extends TwoAuthorizations {
  constructor(
    context: ModuleContext,
    private readonly kind: 'prompt=login' | 'max_age=1',
  ) {
    super(context);
  }

  protected override async beforeSecondAuthorization(): Promise<void> {
    // WaitForOneSecond / WaitFor2Seconds, on the clock the server reads.
    this.op.clock.advance(this.kind === 'prompt=login' ? 1 : 2);
  }

  protected customizeSecondRequest(request: Record<string, unknown>): void {
    if (this.kind === 'prompt=login') request.prompt = 'login';
    else request.max_age = 1;
  }

  protected override performIdTokenValidation(): void {
    super.performIdTokenValidation();
    if (this.firstTime || this.kind !== 'max_age=1') return;
    this.run.check('FAILURE', CheckIdTokenAuthTimeClaimPresentDueToMaxAge, this.state);
    this.run.check('FAILURE', CheckSecondIdTokenAuthTimeIsLaterIfPresent, this.state);
    this.run.check('FAILURE', CheckIdTokenAuthTimeIsRecentIfPresent, this.state);
  }

  protected afterSecondAuthorization(): void {
    if (this.kind === 'prompt=login') {
      this.run.check('FAILURE', CheckSecondIdTokenAuthTimeIsLaterIfPresent, this.state);
    }
    this.run.check('FAILURE', ExpectSecondLoginPage, this.secondLogins);
  }
}

/** AbstractOIDCCSameAuthTwiceServerTest: the second authorization reuses the session. */
export class OidccSameAuthTwice extends TwoAuthorizations {
  constructor(
    context: ModuleContext,
    private readonly kind: 'prompt=none' | 'max_age=10000' | 'id_token_hint',
  ) {
    super(context);
  }

  protected override customizeFirstRequest(request: Record<string, unknown>): void {
    if (this.kind === 'max_age=10000') request.max_age = 15000;
  }

  protected customizeSecondRequest(request: Record<string, unknown>): void {
    if (this.kind === 'max_age=10000') request.max_age = 10000;
    else request.prompt = 'none';
    if (this.kind === 'id_token_hint') request.id_token_hint = this.state.firstIdToken?.value;
  }

  protected override validateFirstIdToken(): void {
    if (this.kind === 'max_age=10000') {
      this.run.check('FAILURE', CheckIdTokenAuthTimeClaimPresentDueToMaxAge, this.state);
    }
  }

  protected afterSecondAuthorization(): void {
    // The suite waits for an immediate redirect: a second login page would leave it waiting.
    if (this.secondLogins > 0) this.run.abort('the second authorization asked for a login');
    if (this.kind === 'max_age=10000') {
      this.run.check('FAILURE', CheckIdTokenAuthTimeClaimPresentDueToMaxAge, this.state);
    }
    this.run.check('FAILURE', CheckIdTokenAuthTimeClaimsSameIfPresent, this.state);
    this.run.check('FAILURE', CheckIdTokenSubConsistentForSecondAuthorization, this.state);
  }
}
