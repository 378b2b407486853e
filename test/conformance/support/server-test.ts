import { randomBytes } from 'node:crypto';
import * as authz from '../conditions/authorization-response.js';
import * as disc from '../conditions/discovery.js';
import * as idt from '../conditions/id-token.js';
import * as jwks from '../conditions/jwks.js';
import * as tok from '../conditions/token-and-userinfo.js';
import type { Arrival, Callback, SuiteBrowser } from './browser.js';
import { condition, fail, type ModuleRun } from './checks.js';
import { callTokenEndpoint, callUserinfo, discover, fetchServerKeys } from './http.js';
import { type CertificationOp, CLIENTS, REDIRECT_URI, type SuiteClient } from './op.js';
import {
  includesCode,
  includesIdToken,
  includesToken,
  type OidcFlowState,
  parseJwt,
  type Variant,
} from './state.js';

/**
 * Our counterpart of the suite's AbstractOIDCCServerTest: configure (discovery, keys, client),
 * one authorization request through the browser, the callback's checks, the code exchange and
 * a userinfo call, each step a method a module overrides the way the suite's modules do.
 */

/** What a module needs of the tester's browser: to open a URL and act until the RP is reached. */
export interface UserAgent {
  /** Login pages the user answered so far. */
  loginPages: number;
  open(url: string | URL, form?: Record<string, string>): Promise<Arrival>;
}

export interface ModuleContext<B extends UserAgent = SuiteBrowser> {
  op: CertificationOp;
  variant: Variant;
  run: ModuleRun;
  /** The tester's browser: signed in already, or fresh for modules that ask to remove cookies. */
  browser: B;
}

/** An alphanumeric value with `-._~` at the end past 10 characters, as the suite makes them. */
export function suiteRandom(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const random = [...randomBytes(length)].map((byte) => alphabet[byte % alphabet.length]).join('');
  return length > 10 ? `${random.slice(0, length - 4)}-._~` : random;
}

const supportsAuthMethod = (method: string) =>
  condition(
    method === 'client_secret_basic'
      ? 'EnsureServerConfigurationSupportsClientSecretBasic'
      : 'EnsureServerConfigurationSupportsClientSecretPost',
    (server: Record<string, unknown>) => {
      const methods = server.token_endpoint_auth_methods_supported;
      if (methods !== undefined && !(methods as string[]).includes(method)) fail(`no ${method}`);
    },
  );

export class ServerTest<B extends UserAgent = SuiteBrowser> {
  readonly run: ModuleRun;
  readonly variant: Variant;
  readonly op: CertificationOp;
  state!: OidcFlowState;
  browser: B;
  /** requested_state_length of the suite. */
  stateLength = 10;
  nonceLength = 10;

  constructor(protected readonly context: ModuleContext<B>) {
    this.run = context.run;
    this.variant = context.variant;
    this.op = context.op;
    this.browser = context.browser;
  }

  get responseType() {
    return this.variant.responseType;
  }

  get formPost() {
    return this.variant.responseMode === 'form_post';
  }

  /** The suite's `client` for the variant's client authentication. */
  protected client(): SuiteClient {
    return this.variant.clientAuth === 'client_secret_post' ? CLIENTS.post : CLIENTS.basic;
  }

  protected redirectUri(): string {
    return REDIRECT_URI;
  }

  async configure(): Promise<void> {
    const { server } = await discover(this.op, this.run);
    this.run.require(disc.CheckServerConfiguration, server);
    const serverJwks = await fetchServerKeys(this.op, this.run, server.jwks_uri);
    this.run.check('WARNING', jwks.CheckServerKeysIsValid, serverJwks);
    for (const [level, check] of jwks.VALIDATE_JWKS_SEQUENCE)
      this.run.check(level, check, serverJwks);
    this.run.check('FAILURE', jwks.CheckForKeyIdInServerJWKs, serverJwks);
    this.run.check('FAILURE', jwks.CheckDistinctKeyIdValueInServerJWKs, serverJwks);
    const client = this.client();
    this.run.check('FAILURE', supportsAuthMethod(client.method), server);
    this.state = {
      now: this.op.clock.now(),
      server,
      serverJwks,
      client,
      variant: this.variant,
      redirectUri: this.redirectUri(),
      request: {},
      response: {},
    };
    this.onConfigure();
  }

  protected onConfigure(): void {}

  /** The module's run: configure, then the authorization flow. */
  async start(): Promise<void> {
    await this.configure();
    await this.performAuthorizationFlow();
  }

  async performAuthorizationFlow(): Promise<void> {
    this.createAuthorizationRequest();
    const arrival = await this.performRedirect();
    await this.handleArrival(arrival);
  }

  /** CreateAuthorizationRequestSteps: client_id, redirect_uri, scope, state, nonce, response_type. */
  protected createAuthorizationRequest(): void {
    const state = suiteRandom(this.stateLength);
    const nonce = suiteRandom(this.nonceLength);
    this.state.state = state;
    this.state.nonce = nonce;
    this.state.request = {
      client_id: this.state.client.id,
      redirect_uri: this.state.redirectUri,
      scope: this.scope(),
      state,
      nonce,
      response_type: this.responseType,
      ...(this.formPost ? { response_mode: 'form_post' } : {}),
    };
    this.customizeAuthorizationRequest(this.state.request);
    if (!('nonce' in this.state.request)) this.state.nonce = undefined;
  }

  protected scope(): string {
    return 'openid';
  }

  /** What a module adds to or removes from the request (the suite's `.then(…)` and `.skip(…)`). */
  protected customizeAuthorizationRequest(_request: Record<string, unknown>): void {}

  /** BuildPlainRedirectToAuthorizationEndpoint: parameters in alphabetical order. */
  protected authorizationUrl(order: 'sorted' | 'reversed' = 'sorted'): URL {
    const url = new URL(String(this.state.server.authorization_endpoint));
    const keys = Object.keys(this.state.request).sort();
    if (order === 'reversed') keys.reverse();
    for (const key of keys) {
      const value = this.state.request[key];
      url.searchParams.append(
        key,
        typeof value === 'object' ? JSON.stringify(value) : String(value),
      );
    }
    return url;
  }

  protected performRedirect(): Promise<Arrival> {
    return this.browser.open(this.authorizationUrl());
  }

  /** Where the browser ended: the callback, or — for most modules a failure — a page. */
  protected async handleArrival(arrival: Arrival): Promise<void> {
    if (arrival.kind === 'page') {
      this.run.abort(
        `the browser stopped at the provider (${arrival.status}) instead of the callback`,
      );
    }
    await this.processCallback(arrival);
  }

  protected async processCallback(callback: Callback): Promise<void> {
    const { state, run } = this;
    state.callback = callback;
    state.now = this.op.clock.now();
    if (this.formPost) {
      state.response = callback.body;
      run.check('FAILURE', authz.CheckCallbackHttpMethodIsPost, state);
      run.check('FAILURE', authz.CheckCallbackContentTypeIsFormUrlEncoded, state);
      run.check('FAILURE', authz.RejectAuthCodeInUrlQuery, state);
      run.check('FAILURE', authz.RejectErrorInUrlQuery, state);
    } else if (this.responseType === 'code') {
      state.response = callback.query;
    } else {
      state.response = callback.fragment;
      run.check('FAILURE', authz.RejectAuthCodeInUrlQuery, state);
      run.check('FAILURE', authz.RejectErrorInUrlQuery, state);
    }
    await this.onAuthorizationCallbackResponse();
  }

  protected async onAuthorizationCallbackResponse(): Promise<void> {
    const { state, run } = this;
    run.check('FAILURE', authz.CheckMatchingCallbackParameters, state);
    run.check('FAILURE', authz.ValidateIssIfPresentInAuthorizationResponse, state);
    run.require(authz.CheckIfAuthorizationEndpointError, state);
    run.check('FAILURE', authz.CheckStateInAuthorizationResponse, state);
    if (includesCode(this.responseType))
      run.require(authz.ExtractAuthorizationCodeFromAuthorizationResponse, state);
    if (includesToken(this.responseType)) {
      run.require(authz.ExtractAccessTokenFromAuthorizationResponse, state);
      state.accessToken = state.response.access_token;
    }
    await this.handleSuccessfulAuthorizationEndpointResponse();
  }

  protected async handleSuccessfulAuthorizationEndpointResponse(): Promise<void> {
    if (includesIdToken(this.responseType)) {
      this.run.require(authz.ExtractIdTokenFromAuthorizationResponse, this.state);
      this.state.idToken = parseJwt(String(this.state.response.id_token));
      this.state.authorizationIdToken = this.state.idToken;
      this.performAuthorizationEndpointIdTokenValidation();
    }
    if (includesCode(this.responseType)) this.performAuthorizationCodeValidation();
    if (includesToken(this.responseType)) await this.requestProtectedResource();
    await this.performPostAuthorizationFlow();
  }

  protected performAuthorizationEndpointIdTokenValidation(): void {
    this.performIdTokenValidation();
  }

  /** PerformStandardIdTokenChecks. */
  protected performIdTokenValidation(): void {
    const { run, state } = this;
    run.check('FAILURE', idt.ValidateIdToken, state);
    run.check('FAILURE', idt.ValidateIdTokenStandardClaims, state);
    run.check('FAILURE', idt.ValidateIdTokenNonce, state);
    run.check('FAILURE', idt.ValidateIdTokenACRClaimAgainstRequest, state);
    run.check('FAILURE', idt.ValidateIdTokenSignature, state);
    run.check('FAILURE', idt.CheckForSubjectInIdToken, state);
    run.check('FAILURE', idt.EnsureIdTokenUpdatedAtValid, state);
  }

  protected performAuthorizationCodeValidation(): void {}

  protected async performPostAuthorizationFlow(): Promise<void> {
    if (includesCode(this.responseType)) {
      await this.requestAuthorizationCode();
      await this.requestProtectedResource();
    }
    await this.onPostAuthorizationFlowComplete();
  }

  /** The token request of the code grant, before it is sent (modules add to it). */
  protected authorizationCodeRequest(): Record<string, string> {
    return {
      grant_type: 'authorization_code',
      code: this.state.response.code ?? '',
      redirect_uri: this.state.redirectUri,
    };
  }

  protected async callTokenEndpoint(form: Record<string, string>): Promise<void> {
    const { state } = this;
    state.token = await callTokenEndpoint(this.op, state.server.token_endpoint, state.client, form);
    state.now = this.op.clock.now();
  }

  protected async requestAuthorizationCode(): Promise<void> {
    const { state, run } = this;
    await this.callTokenEndpoint(this.authorizationCodeRequest());
    run.require(tok.tokenStatusIs(200), state);
    run.require(tok.CheckIfTokenEndpointResponseError, state);
    run.require(tok.CheckForAccessTokenValue, state);
    state.accessToken = String(state.token?.json?.access_token);
    run.check('INFO', tok.ExtractExpiresInFromTokenEndpointResponse, state);
    run.check('FAILURE', tok.ValidateExpiresIn, state);
    run.check('INFO', tok.CheckForRefreshTokenValue, state);
    run.require(tok.ExtractIdTokenFromTokenResponse, state);
    state.idToken = parseJwt(String(state.token?.json?.id_token));
    state.tokenIdToken = state.idToken;
    this.additionalTokenEndpointResponseValidation();
    if (includesIdToken(this.responseType)) {
      run.check('FAILURE', tok.VerifyIdTokenSubConsistentHybridFlow, state);
    }
  }

  protected additionalTokenEndpointResponseValidation(): void {
    this.performIdTokenValidation();
  }

  /** CallProtectedResource (the userinfo endpoint) with the access token. */
  protected async requestProtectedResource(): Promise<void> {
    const { state } = this;
    const answer = await callUserinfo(
      this.op,
      state.server.userinfo_endpoint,
      state.accessToken ?? '',
      'get',
    );
    this.run.check(
      'FAILURE',
      condition('EnsureHttpStatusCodeIs200', (status: number) => {
        if (status !== 200) fail(`the protected resource answered ${status}`);
      }),
      answer.status,
    );
  }

  protected async onPostAuthorizationFlowComplete(): Promise<void> {}

  /** performGenericAuthorizationEndpointErrorResponseValidation. */
  protected performGenericAuthorizationEndpointErrorResponseValidation(): void {
    const { state, run } = this;
    run.check('FAILURE', authz.CheckStateInAuthorizationResponse, state);
    run.check('FAILURE', authz.ValidateIssIfPresentInAuthorizationResponse, state);
    run.check('FAILURE', authz.EnsureErrorFromAuthorizationEndpointResponse, state);
    run.check('FAILURE', authz.RejectAuthCodeInAuthorizationEndpointResponse, state);
    run.check(
      'WARNING',
      authz.CheckForUnexpectedParametersInErrorResponseFromAuthorizationEndpoint,
      state,
    );
    run.check('WARNING', authz.authorizationErrorFields.containsCrLfTab, state);
    run.check('FAILURE', authz.authorizationErrorFields.description, state);
    run.check('FAILURE', authz.authorizationErrorFields.uri, state);
  }
}
