import { randomBytes } from 'node:crypto';
import * as fapi from '../../conditions/fapi2.js';
import type { Condition } from '../../support/checks.js';
import type { JwtParts } from '../../support/fapi2-client.js';
import { Fapi2ServerTest, Fapi2TokenEndpointTest } from '../../support/fapi2-server-test.js';
import type { HttpAnswer } from '../../support/state.js';

/**
 * The FAPI 2.0 modules of the token endpoint, and of client authentication by private_key_jwt at
 * the token and PAR endpoints (FAPI 2.0 SP §5.3.2.1-6, -8, -13; RFC 7523).
 */

/** A token endpoint error answer: its status and code, then the fields every error has. */
abstract class TokenError extends Fapi2TokenEndpointTest {
  /** The status the error must come with, and the codes it may be. */
  protected abstract readonly expected: ReadonlyArray<Condition<HttpAnswer>>;

  protected override async processTokenEndpointResponse(): Promise<void> {
    for (const check of this.expected) this.run.check('FAILURE', check, this.tokenAnswer);
    this.checkTokenErrorFields();
  }
}

const INVALID_GRANT = [
  fapi.statusIs('CheckTokenEndpointHttpStatus400', (status) => status === 400),
  fapi.errorIn('CheckErrorFromTokenEndpointResponseErrorInvalidGrant', ['invalid_grant']),
];
const INVALID_CLIENT_OR_REQUEST = [
  fapi.CheckTokenEndpointHttpStatusIs400Allowing401ForInvalidClientError,
  fapi.CheckErrorFromTokenEndpointResponseErrorInvalidClientOrInvalidRequest,
];

/** The token request authenticated as the second client: a code is only its own client's. */
abstract class SecondClientRedeems extends TokenError {
  protected override async clientAuthentication(endpoint: 'par' | 'token') {
    if (endpoint === 'par') return super.clientAuthentication(endpoint);
    const first = this.state.client;
    this.state.client = this.op.clients.second;
    try {
      return {
        client_id: this.op.clients.second.id,
        ...(await super.clientAuthentication(endpoint)),
      };
    } finally {
      this.state.client = first;
    }
  }
}

/** fapi2-security-profile-final-ensure-client-id-in-token-endpoint. */
export class Fapi2ClientIdInTokenEndpoint extends SecondClientRedeems {
  protected readonly expected = [
    fapi.CheckTokenEndpointHttpStatusIs400Allowing401ForInvalidClientError,
    fapi.CheckErrorFromTokenEndpointResponseErrorInvalidClientOrInvalidGrant,
  ];
}

/** fapi2-security-profile-final-ensure-authorization-code-is-bound-to-client. */
export class Fapi2AuthorizationCodeIsBoundToClient extends SecondClientRedeems {
  protected readonly expected = INVALID_GRANT;
}

/**
 * fapi2-security-profile-final-attempt-reuse-authorization-code-after-one-second: a code works
 * once (FAPI 2.0 SP §5.3.2.2-9); its replay should end the tokens it gave too.
 */
export class Fapi2ReuseAuthorizationCodeAfterOneSecond extends Fapi2ServerTest {
  protected override async onPostAuthorizationFlowComplete(): Promise<void> {
    const { run } = this;
    const firstToken = this.state.accessToken;
    this.op.clock.advance(1);
    const answer = await this.callTokenEndpoint(this.authorizationCodeRequest());
    if (answer.status === 200)
      run.check('FAILURE', fapi.ServerAllowedReusingAuthorizationCode, answer);
    else {
      for (const check of INVALID_GRANT) run.check('FAILURE', check, answer);
      this.checkTokenErrorFields();
    }
    const resource = await this.callProtectedResource({ accessToken: firstToken });
    run.check('WARNING', fapi.EnsureHttpStatusCodeIs4xx, resource);
    run.finish();
  }
}

/** fapi2-security-profile-final-ensure-token-endpoint-fails-with-expired-auth-code (62 s). */
export class Fapi2ExpiredAuthorizationCode extends Fapi2TokenEndpointTest {
  protected override async exchangeAuthorizationCode(): Promise<void> {
    this.op.clock.advance(62);
    await super.exchangeAuthorizationCode();
  }

  protected override async processTokenEndpointResponse(): Promise<void> {
    const answer = this.tokenAnswer;
    if (answer.status === 200) {
      this.run.check('FAILURE', fapi.ServerAllowedExpiredAuthorizationCode, answer);
      return;
    }
    for (const check of INVALID_GRANT) this.run.check('FAILURE', check, answer);
    this.checkTokenErrorFields();
  }
}

/** fapi2-security-profile-final-ensure-pkce-code-verifier-required. */
export class Fapi2CodeVerifierRequired extends TokenError {
  protected readonly expected = INVALID_GRANT;

  protected override pkceCodeVerifier(): Record<string, string> {
    return {};
  }
}

/** fapi2-security-profile-final-incorrect-pkce-code-verifier-rejected. */
export class Fapi2IncorrectCodeVerifierRejected extends TokenError {
  protected readonly expected = INVALID_GRANT;

  protected override pkceCodeVerifier(): Record<string, string> {
    return { code_verifier: randomBytes(32).toString('base64url') };
  }
}

/** An assertion at the token endpoint that the module spoils (invalid_client or invalid_request). */
abstract class SpoiledTokenAssertion extends TokenError {
  protected readonly expected: ReadonlyArray<Condition<HttpAnswer>> = INVALID_CLIENT_OR_REQUEST;

  protected override customizeClientAssertion(endpoint: 'par' | 'token', parts: JwtParts): void {
    if (endpoint === 'token') this.spoil(parts);
  }

  protected abstract spoil(parts: JwtParts): void;
}

/**
 * fapi2-security-profile-final-ensure-signed-client-assertion-with-RS256-fails: RS256 is not a
 * FAPI 2.0 algorithm (§5.4); the client's RSA key signs with it. Skipped for a client without one.
 */
export class Fapi2ClientAssertionWithRS256Fails extends SpoiledTokenAssertion {
  protected override readonly expected = [
    fapi.CheckTokenEndpointHttpStatusIs400Allowing401ForInvalidClientError,
    fapi.CheckErrorFromTokenEndpointResponseErrorInvalidClient,
  ];

  protected override async onConfigure(): Promise<void> {
    if (this.state.client.alg !== 'PS256')
      this.run.skip(`the client's alg is ${this.state.client.alg}: RS256 needs an RSA key`);
  }

  protected spoil({ header }: JwtParts): void {
    header.alg = 'RS256';
  }
}

/** fapi2-security-profile-final-ensure-client-assertion-with-exp-is-5-minutes-in-past-fails. */
export class Fapi2ClientAssertionExpiredFails extends SpoiledTokenAssertion {
  protected spoil({ claims }: JwtParts): void {
    claims.exp = Math.floor(this.op.clock.now() / 1000) - 300;
  }
}

/** fapi2-security-profile-final-ensure-client-assertion-with-wrong-aud-fails. */
export class Fapi2ClientAssertionWrongAudFails extends SpoiledTokenAssertion {
  protected spoil({ claims }: JwtParts): void {
    claims.aud = 'https://fapidev-rs.example.net/api/userinfo';
  }
}

/** fapi2-security-profile-final-ensure-client-assertion-with-no-sub-fails. */
export class Fapi2ClientAssertionWithoutSubFails extends SpoiledTokenAssertion {
  protected spoil({ claims }: JwtParts): void {
    delete claims.sub;
  }
}

/** fapi2-security-profile-final-ensure-client-assertion-in-token-endpoint: client_id alone. */
export class Fapi2ClientAssertionInTokenEndpoint extends TokenError {
  protected readonly expected = INVALID_CLIENT_OR_REQUEST;

  protected override async clientAuthentication(endpoint: 'par' | 'token') {
    if (endpoint === 'par') return super.clientAuthentication(endpoint);
    return { client_id: this.state.client.id };
  }
}

/**
 * The PAR modules of client assertions the endpoint must refuse: 400 or 401, invalid_client or
 * invalid_request (FAPI 2.0 SP §5.3.2.1-8, -13).
 */
export class Fapi2ParAssertionRefused extends Fapi2ServerTest {
  constructor(
    context: ConstructorParameters<typeof Fapi2ServerTest>[0],
    private readonly spoil: (parts: JwtParts, test: Fapi2ParAssertionRefused) => void,
  ) {
    super(context);
  }

  /** The discovery document, which names the audiences the spoilers put in the assertion. */
  get server() {
    return this.state.server;
  }

  protected override customizeClientAssertion(endpoint: 'par' | 'token', parts: JwtParts): void {
    if (endpoint === 'par') this.spoil(parts, this);
  }

  protected override async processParResponse(answer: HttpAnswer): Promise<void> {
    this.run.check('FAILURE', fapi.EnsureHttpStatusCodeIs400or401, answer);
    this.run.check(
      'FAILURE',
      fapi.CheckErrorFromParEndpointResponseErrorInvalidClientOrInvalidRequest,
      answer,
    );
    this.run.finish();
  }
}

/** How each refused PAR assertion module spoils the assertion. */
export const PAR_ASSERTION_SPOILERS = {
  'fapi2-security-profile-final-par-test-par-endpoint-url-as-audience-fails': (
    { claims },
    test,
  ) => {
    claims.aud = test.server.pushed_authorization_request_endpoint;
  },
  'fapi2-security-profile-final-par-test-token-endpoint-url-as-audience-fails': (
    { claims },
    test,
  ) => {
    claims.aud = test.server.token_endpoint;
  },
  'fapi2-security-profile-final-par-test-array-as-audience-fails': ({ claims }, test) => {
    claims.aud = [test.server.issuer, test.server.token_endpoint];
  },
  'fapi2-security-profile-final-par-ensure-jwt-client-assertions-nbf-over-60-seconds-in-the-future-fails':
    ({ claims }) => {
      claims.iat = Number(claims.iat) + 62;
      claims.exp = Number(claims.exp) + 62;
    },
} satisfies Record<string, (parts: JwtParts, test: Fapi2ParAssertionRefused) => void>;

/**
 * fapi2-security-profile-final-par-ensure-jwt-client-assertions-nbf-8-seconds-in-the-future-is-accepted:
 * a client clock 8 s ahead is tolerated (FAPI 2.0 SP §5.3.2.1-13).
 */
export class Fapi2ParAssertion8SecondsAheadAccepted extends Fapi2ServerTest {
  protected override customizeClientAssertion(endpoint: 'par' | 'token', { claims }: JwtParts) {
    if (endpoint !== 'par') return;
    const ahead = Math.floor(this.op.clock.now() / 1000) + 8;
    claims.iat = ahead;
    claims.nbf = ahead;
  }

  protected override async processParResponse(answer: HttpAnswer): Promise<void> {
    if (answer.status !== 201) {
      this.run.check('WARNING', fapi.CheckPAREndpointResponse201WithNoError, answer);
      this.run.finish();
    }
    await super.processParResponse(answer);
  }
}
