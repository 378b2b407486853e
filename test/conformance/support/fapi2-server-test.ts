import { randomUUID } from 'node:crypto';
import * as authz from '../conditions/authorization-response.js';
import * as disc from '../conditions/discovery.js';
import * as fapi from '../conditions/fapi2.js';
import * as idt from '../conditions/id-token.js';
import * as jwks from '../conditions/jwks.js';
import * as tok from '../conditions/token-and-userinfo.js';
import type { Arrival, Callback, ProviderPage, SuiteBrowser } from './browser.js';
import { condition, fail, type ModuleRun } from './checks.js';
import {
  clientAssertion,
  type DpopKey,
  dpopProof,
  generateDpopKey,
  type JwtParts,
  pkcePair,
} from './fapi2-client.js';
import type { Fapi2Op, FapiClient } from './fapi2-op.js';
import { discover, fetchServerKeys } from './http.js';
import { suiteRandom } from './server-test.js';
import { type FlowState, type HttpAnswer, parseJwt, readAnswer } from './state.js';

/**
 * Our counterpart of the suite's AbstractFAPI2SPFinalServerTestModule, for the variant a fapi2
 * realm certifies with: plain_fapi, private_key_jwt, DPoP, unsigned (pushed) requests,
 * openid_connect, plain responses. Configure, push the request to PAR, send the browser with the
 * request_uri, check the callback, redeem the code with a DPoP proof, call the protected resource
 * (userinfo) with the bound token. Each step is a method a module overrides as the suite's do.
 */

export interface Fapi2State extends FlowState {
  client: FapiClient;
  codeVerifier?: string;
  par?: HttpAnswer;
  requestUri?: string;
  resource?: HttpAnswer;
}

export interface Fapi2Context {
  op: Fapi2Op;
  run: ModuleRun;
  /** The tester's browser: signed in already. */
  browser: SuiteBrowser;
}

/** Where a JWT a module may change goes. */
export type Endpoint = 'par' | 'token' | 'resource';

/** FAPI2FinalEnsureMinimumServerKeyLength (FAPI 2.0 SP §5.4.1-2, -3). */
const FAPI2FinalEnsureMinimumServerKeyLength = condition(
  'FAPI2FinalEnsureMinimumServerKeyLength',
  (set: { keys: Array<Record<string, unknown>> }) => {
    for (const key of set.keys) {
      if (key.kty === 'RSA' && Buffer.from(String(key.n), 'base64url').length * 8 < 2048)
        fail(`RSA key ${String(key.kid)} is under 2048 bits`);
      if (key.kty === 'EC' && Buffer.from(String(key.x), 'base64url').length * 8 < 160)
        fail(`EC key ${String(key.kid)} is under 160 bits`);
    }
  },
);

export class Fapi2ServerTest {
  readonly run: ModuleRun;
  readonly op: Fapi2Op;
  browser: SuiteBrowser;
  state!: Fapi2State;
  whichClient: 1 | 2 = 1;
  /** GenerateDpopKey: each client's proof key, made when it first needs one. */
  protected readonly dpopKeys = new Map<string, DpopKey>();
  /** Sends a DPoP proof to the PAR endpoint as well (RFC 9449 §10.1). */
  protected useDpopAuthCodeBinding = false;
  /** requested_state_length / requested_nonce_length of the suite. */
  protected stateLength = 10;
  protected nonceLength = 10;

  constructor(protected readonly context: Fapi2Context) {
    this.run = context.run;
    this.op = context.op;
    this.browser = context.browser;
  }

  get isSecondClient(): boolean {
    return this.whichClient === 2;
  }

  protected client(): FapiClient {
    return this.isSecondClient ? this.op.clients.second : this.op.clients.first;
  }

  /** The module's run: configure, then the authorization flow. */
  async start(): Promise<void> {
    await this.configure();
    await this.performAuthorizationFlow();
  }

  async configure(): Promise<void> {
    const { server } = await discover(this.op, this.run);
    this.run.require(disc.CheckServerConfiguration, server);
    const serverJwks = await fetchServerKeys(this.op, this.run, server.jwks_uri);
    this.run.check('WARNING', jwks.CheckServerKeysIsValid, serverJwks);
    for (const [level, check] of jwks.VALIDATE_JWKS_SEQUENCE)
      this.run.check(level, check, serverJwks);
    this.run.check('FAILURE', jwks.CheckForKeyIdInServerJWKs, serverJwks);
    this.run.check('FAILURE', FAPI2FinalEnsureMinimumServerKeyLength, serverJwks);
    const client = this.client();
    this.state = {
      now: this.op.clock.now(),
      server,
      serverJwks,
      client,
      redirectUri: client.redirectUri,
      request: {},
      response: {},
    };
    await this.onConfigure();
  }

  protected async onConfigure(): Promise<void> {}

  /** Switches to the suite's second client (switchToSecondClient). */
  protected switchToSecondClient(): void {
    this.whichClient = 2;
    this.useClient();
  }

  protected switchToFirstClient(): void {
    this.whichClient = 1;
    this.useClient();
  }

  private useClient(): void {
    const client = this.client();
    this.state.client = client;
    this.state.redirectUri = client.redirectUri;
  }

  async performAuthorizationFlow(): Promise<void> {
    this.createAuthorizationRequest();
    await this.performParAuthorizationRequestFlow();
  }

  /** CreateAuthorizationRequestSteps: state, nonce, response_type code, PKCE S256. */
  protected createAuthorizationRequest(): void {
    const { verifier, challenge } = pkcePair();
    const state = suiteRandom(this.isSecondClient ? 128 : this.stateLength);
    const nonce = suiteRandom(this.nonceLength);
    this.state.codeVerifier = verifier;
    this.state.state = state;
    this.state.nonce = nonce;
    this.state.request = {
      client_id: this.state.client.id,
      redirect_uri: this.state.redirectUri,
      scope: this.state.client.scope,
      state,
      nonce,
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
    this.customizeAuthorizationRequest(this.state.request);
    if (!('nonce' in this.state.request)) this.state.nonce = undefined;
    if (!('state' in this.state.request)) this.state.state = undefined;
  }

  protected customizeAuthorizationRequest(_request: Record<string, unknown>): void {}

  /** The DPoP key of the current client, made on first use. */
  protected async dpopKey(): Promise<DpopKey> {
    const id = this.state.client.id;
    const existing = this.dpopKeys.get(id);
    if (existing) return existing;
    const key = await generateDpopKey();
    this.dpopKeys.set(id, key);
    return key;
  }

  /** GenerateDpopKey again: the current client's proofs are signed by a new key from now on. */
  protected async replaceDpopKey(): Promise<DpopKey> {
    const key = await generateDpopKey();
    this.dpopKeys.set(this.state.client.id, key);
    return key;
  }

  /** A proof for `endpoint` by the current client's key, as the module shapes it. */
  protected async proof(endpoint: Endpoint, htm: string, htu: string, accessToken?: string) {
    const target = { htm, htu, ...(accessToken === undefined ? {} : { accessToken }) };
    return dpopProof(await this.dpopKey(), target, this.op.clock.now(), (parts) =>
      this.customizeDpopProof(endpoint, parts),
    );
  }

  protected customizeDpopProof(_endpoint: Endpoint, _parts: JwtParts): void | Promise<void> {}

  /** The client's authentication (CreateJWTClientAuthenticationAssertionWithIssAud…). */
  protected async clientAuthentication(endpoint: 'par' | 'token'): Promise<Record<string, string>> {
    const assertion = await clientAssertion(
      this.state.client,
      String(this.state.server.issuer),
      this.op.clock.now(),
      (parts) => this.customizeClientAssertion(endpoint, parts),
    );
    return {
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: assertion,
    };
  }

  protected customizeClientAssertion(_endpoint: 'par' | 'token', _parts: JwtParts): void {}

  /** BuildUnsignedPAREndpointRequest with the client's authentication. */
  protected async parForm(): Promise<Record<string, string>> {
    const form: Record<string, string> = {};
    for (const [name, value] of Object.entries(this.state.request))
      form[name] = typeof value === 'object' ? JSON.stringify(value) : String(value);
    return { ...form, ...(await this.clientAuthentication('par')) };
  }

  protected parMethod = 'POST';

  /** CallPAREndpoint, with a DPoP proof when the module binds the code to a key. */
  protected async callParEndpoint(): Promise<HttpAnswer> {
    const url = String(this.state.server.pushed_authorization_request_endpoint);
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (this.useDpopAuthCodeBinding) headers.dpop = await this.proof('par', this.parMethod, url);
    const answer = await readAnswer(
      await this.op.fetch(url, {
        method: this.parMethod,
        headers,
        body: new URLSearchParams(await this.parForm()),
      }),
    );
    this.state.par = answer;
    return answer;
  }

  protected async performParAuthorizationRequestFlow(): Promise<void> {
    await this.processParResponse(await this.callParEndpoint());
  }

  protected async processParResponse(answer: HttpAnswer): Promise<void> {
    const { run } = this;
    run.require(fapi.CheckPAREndpointResponse201WithNoError, answer);
    run.require(fapi.CheckForRequestUriValue, answer);
    run.check('FAILURE', fapi.CheckForPARResponseExpiresIn, answer);
    run.check('FAILURE', fapi.EnsureContentTypeJson, answer);
    this.state.requestUri = String(answer.json?.request_uri);
    run.check('FAILURE', fapi.EnsureMinimumRequestUriEntropy, answer);
    await this.performParRedirectWithRequestUri();
  }

  /**
   * BuildRequestObjectByReferenceRedirectToAuthorizationEndpoint: client_id and request_uri; the
   * second client of the happy flow sends them the other way round (…ReorderedParams).
   */
  protected authorizationRedirect(extra: Record<string, string> = {}): URL {
    const url = new URL(String(this.state.server.authorization_endpoint));
    const pairs: Array<[string, string]> = [
      ['client_id', this.state.client.id],
      ['request_uri', this.state.requestUri ?? ''],
    ];
    if (this.isSecondClient) pairs.reverse();
    for (const [name, value] of [...pairs, ...Object.entries(extra)])
      url.searchParams.append(name, value);
    return url;
  }

  protected async performParRedirectWithRequestUri(): Promise<void> {
    await this.performRedirect(this.authorizationRedirect());
  }

  protected async performRedirect(url: URL): Promise<void> {
    const arrival = await this.browser.open(url);
    await this.handleArrival(arrival);
  }

  protected async handleArrival(arrival: Arrival): Promise<void> {
    if (arrival.kind === 'page') return this.handleProviderPage(arrival);
    await this.processCallback(arrival);
  }

  /** A page of the provider where a callback was expected: the module fails, unless it expects one. */
  protected async handleProviderPage(page: ProviderPage): Promise<void> {
    this.run.abort(`the browser stopped at the provider (${page.status}) instead of the callback`);
  }

  protected async processCallback(callback: Callback): Promise<void> {
    const { state, run } = this;
    state.callback = callback;
    state.now = this.op.clock.now();
    state.response = callback.query;
    run.check('FAILURE', fapi.RejectErrorInUrlFragment, state);
    run.check('FAILURE', fapi.RejectAuthCodeInUrlFragment, state);
    await this.onAuthorizationCallbackResponse();
  }

  protected async onAuthorizationCallbackResponse(): Promise<void> {
    const { state, run } = this;
    run.check('FAILURE', authz.CheckMatchingCallbackParameters, state);
    run.check('FAILURE', fapi.RejectStateInUrlFragmentForCodeFlow, state);
    run.require(authz.CheckIfAuthorizationEndpointError, state);
    run.check(
      'WARNING',
      fapi.ValidateSuccessfulAuthCodeFlowResponseFromAuthorizationEndpoint,
      state,
    );
    run.check('FAILURE', authz.CheckStateInAuthorizationResponse, state);
    run.check('FAILURE', fapi.RequireIssInAuthorizationResponse, state);
    run.require(authz.ExtractAuthorizationCodeFromAuthorizationResponse, state);
    this.checkAuthorizationCode();
    await this.handleSuccessfulAuthorizationEndpointResponse();
  }

  protected checkAuthorizationCode(): void {
    this.run.check('FAILURE', authz.EnsureMinimumAuthorizationCodeLength, this.state);
    this.run.check('FAILURE', authz.EnsureMinimumAuthorizationCodeEntropy, this.state);
  }

  /**
   * The checks every module makes of an error the authorization endpoint sent back to the client:
   * the state it returned, then checkErrorWithoutUnexpectedParameters.
   */
  protected checkAuthorizationErrorResponse(): void {
    this.run.check('FAILURE', authz.CheckStateInAuthorizationResponse, this.state);
    this.checkErrorWithoutUnexpectedParameters();
  }

  /** That the authorization endpoint sent back an error, and no parameter an error has not. */
  protected checkErrorWithoutUnexpectedParameters(): void {
    const { state, run } = this;
    run.check('FAILURE', authz.EnsureErrorFromAuthorizationEndpointResponse, state);
    run.check(
      'WARNING',
      authz.CheckForUnexpectedParametersInErrorResponseFromAuthorizationEndpoint,
      state,
    );
  }

  protected async handleSuccessfulAuthorizationEndpointResponse(): Promise<void> {
    await this.performPostAuthorizationFlow();
  }

  protected async performPostAuthorizationFlow(): Promise<void> {
    await this.exchangeAuthorizationCode();
    await this.requestProtectedResource();
    await this.onPostAuthorizationFlowComplete();
  }

  protected async onPostAuthorizationFlowComplete(): Promise<void> {}

  /** CreateTokenEndpointRequestForAuthorizationCodeGrant and AddCodeVerifierToTokenEndpointRequest. */
  protected authorizationCodeRequest(): Record<string, string> {
    return {
      grant_type: 'authorization_code',
      code: this.state.response.code ?? '',
      redirect_uri: this.state.redirectUri,
      ...this.pkceCodeVerifier(),
    };
  }

  protected pkceCodeVerifier(): Record<string, string> {
    return { code_verifier: this.state.codeVerifier ?? '' };
  }

  /**
   * callSenderConstrainedTokenEndpoint: the form with the client's authentication and a DPoP
   * proof; once more with the server's nonce if it asks for one (use_dpop_nonce).
   */
  protected async callTokenEndpoint(
    form: Record<string, string>,
    { authenticate = true, dpop = true } = {},
  ): Promise<HttpAnswer> {
    const url = String(this.state.server.token_endpoint);
    let answer: HttpAnswer | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      const headers: Record<string, string> = {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      };
      if (dpop) headers.dpop = await this.proof('token', 'POST', url);
      const body = { ...form, ...(authenticate ? await this.clientAuthentication('token') : {}) };
      answer = await readAnswer(
        await this.op.fetch(url, { method: 'POST', headers, body: new URLSearchParams(body) }),
      );
      if (answer.json?.error !== 'use_dpop_nonce') break;
    }
    this.state.token = answer;
    this.state.now = this.op.clock.now();
    return answer as HttpAnswer;
  }

  protected async exchangeAuthorizationCode(): Promise<void> {
    await this.callTokenEndpoint(this.authorizationCodeRequest());
    await this.processTokenEndpointResponse();
  }

  protected async processTokenEndpointResponse(): Promise<void> {
    const { state, run } = this;
    run.require(tok.tokenStatusIs(200), state);
    run.require(tok.CheckIfTokenEndpointResponseError, state);
    run.require(tok.CheckForAccessTokenValue, state);
    state.accessToken = String(state.token?.json?.access_token);
    run.check('WARNING', tok.ExtractExpiresInFromTokenEndpointResponse, state);
    if (state.token?.json?.expires_in !== undefined)
      run.check('FAILURE', tok.ValidateExpiresIn, state);
    run.check('INFO', tok.CheckForRefreshTokenValue, state);
    if (state.token?.json?.refresh_token !== undefined) {
      run.check('FAILURE', tok.EnsureMinimumRefreshTokenLength, state);
      run.check('FAILURE', tok.EnsureMinimumRefreshTokenEntropy, state);
    }
    run.check('FAILURE', fapi.EnsureMinimumAccessTokenLength, state);
    run.check('FAILURE', tok.EnsureMinimumAccessTokenEntropy, state);
    run.require(tok.ExtractIdTokenFromTokenResponse, state);
    state.idToken = parseJwt(String(state.token?.json?.id_token));
    state.tokenIdToken = state.idToken;
    this.performIdTokenValidation();
  }

  /** PerformStandardIdTokenChecks, EnsureIdTokenContainsKid, FAPI2ValidateIdTokenSigningAlg, hashes. */
  protected performIdTokenValidation(): void {
    const { run, state } = this;
    run.check('FAILURE', idt.ValidateIdToken, state);
    run.check('FAILURE', idt.ValidateIdTokenNonce, state);
    run.check('FAILURE', idt.ValidateIdTokenACRClaimAgainstRequest, state);
    run.check('FAILURE', idt.ValidateIdTokenSignature, state);
    run.check('FAILURE', idt.CheckForSubjectInIdToken, state);
    run.check('FAILURE', idt.EnsureIdTokenUpdatedAtValid, state);
    run.check('FAILURE', idt.EnsureIdTokenContainsKid, state);
    run.check('FAILURE', fapi.FAPI2ValidateIdTokenSigningAlg, state);
    for (const claim of ['c_hash', 'at_hash'] as const) {
      if (run.check('INFO', idt.extractHash(claim), state))
        run.check('FAILURE', idt.validateHash(claim), state);
    }
  }

  /**
   * CallProtectedResource with the bound token (the plan's resource is the userinfo endpoint):
   * `Authorization: DPoP`, a proof with `ath`, and for the first client the FAPI headers.
   */
  protected async callProtectedResource(
    options: {
      accessToken?: string;
      scheme?: string;
      proof?: string | null;
      query?: Record<string, string>;
    } = {},
  ): Promise<HttpAnswer> {
    const endpoint = String(this.state.server.userinfo_endpoint);
    const url = new URL(endpoint);
    for (const [name, value] of Object.entries(options.query ?? {}))
      url.searchParams.set(name, value);
    const token = options.accessToken ?? this.state.accessToken ?? '';
    const proof =
      options.proof === undefined
        ? await this.proof('resource', 'GET', endpoint, token)
        : options.proof;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (!options.query?.access_token)
      headers.authorization = `${options.scheme ?? 'DPoP'} ${token}`;
    if (proof !== null) headers.dpop = proof;
    if (!this.isSecondClient) {
      headers['x-fapi-auth-date'] = new Date(this.op.clock.now()).toUTCString();
      headers['x-fapi-customer-ip-address'] = '198.51.100.119';
      headers['x-fapi-interaction-id'] = randomUUID();
    }
    const answer = await readAnswer(await this.op.fetch(url, { headers }));
    this.state.resource = answer;
    const sent = headers['x-fapi-interaction-id'];
    if (sent !== undefined)
      this.run.check('FAILURE', fapi.EnsureMatchingFAPIInteractionId, { answer, sent });
    return answer;
  }

  protected async requestProtectedResource(): Promise<void> {
    const answer = await this.callProtectedResource();
    this.run.check('FAILURE', fapi.EnsureHttpStatusCodeIs200or201, answer);
    this.run.check('FAILURE', fapi.CheckForDateHeaderInResourceResponse, answer);
  }

  /** The checks of a token endpoint error answer every negative module makes (RFC 6749 §5.2). */
  protected checkTokenErrorFields(): void {
    const { run, state } = this;
    run.check('FAILURE', tok.CheckTokenEndpointReturnedJsonContentType, state);
    run.check('FAILURE', tok.ValidateErrorFromTokenEndpointResponseError, state);
    run.check('WARNING', tok.tokenErrorFields.containsCrLfTab, state);
    run.check('FAILURE', tok.tokenErrorFields.description, state);
    run.check('FAILURE', tok.tokenErrorFields.uri, state);
  }

  protected get tokenAnswer(): HttpAnswer {
    if (!this.state.token) fail('no token endpoint answer');
    return this.state.token;
  }
}

/** AbstractFAPI2SPFinalPerformTokenEndpoint: the module ends after the token endpoint's answer. */
export class Fapi2TokenEndpointTest extends Fapi2ServerTest {
  protected override async performPostAuthorizationFlow(): Promise<void> {
    await this.exchangeAuthorizationCode();
    this.run.finish();
  }
}

/**
 * AbstractFAPI2SPFinalMultipleClient: after the first client's flow, the second client's, and
 * then the first client's DPoP key with the second client's access token, which must be refused.
 */
export class Fapi2MultipleClientTest extends Fapi2ServerTest {
  protected override async onPostAuthorizationFlowComplete(): Promise<void> {
    if (this.isSecondClient) return this.switchToClient1AndTryClient2AccessToken();
    this.switchToSecondClient();
    await this.performAuthorizationFlow();
  }

  protected async switchToClient1AndTryClient2AccessToken(): Promise<void> {
    const secondToken = this.state.accessToken;
    this.switchToFirstClient();
    const answer = await this.callProtectedResource({ accessToken: secondToken });
    this.run.check('FAILURE', fapi.EnsureHttpStatusCodeIs4xx, answer);
  }
}
