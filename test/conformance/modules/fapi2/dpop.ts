import { randomUUID } from 'node:crypto';
import * as fapi from '../../conditions/fapi2.js';
import * as tok from '../../conditions/token-and-userinfo.js';
import { generateDpopKey, type JwtParts } from '../../support/fapi2-client.js';
import {
  type Endpoint,
  Fapi2ServerTest,
  Fapi2TokenEndpointTest,
} from '../../support/fapi2-server-test.js';
import type { HttpAnswer } from '../../support/state.js';

/** The FAPI 2.0 modules about DPoP (RFC 9449): proofs, their time window, and code binding. */

/** fapi2-security-profile-final-check-dpop-proof-nbf-exp: proofs with nbf and exp are fine. */
export class Fapi2CheckDpopProofNbfExp extends Fapi2ServerTest {
  protected override customizeDpopProof(endpoint: Endpoint, { claims }: JwtParts): void {
    if (endpoint === 'par') return;
    const now = Math.floor(this.op.clock.now() / 1000);
    claims.nbf = now;
    claims.exp = now + 300;
  }
}

/**
 * fapi2-security-profile-final-ensure-dpopproof-with-iat-10seconds-{before,after}-succeeds: a
 * proof issued 10 s ago, or 8 s ahead of the server's clock, is accepted (FAPI 2.0 SP
 * §5.3.2.1-13), at the PAR, token and resource endpoints.
 */
export class Fapi2DpopIatOffsetSucceeds extends Fapi2ServerTest {
  protected override useDpopAuthCodeBinding = true;

  constructor(
    context: ConstructorParameters<typeof Fapi2ServerTest>[0],
    private readonly offsetSeconds: number,
  ) {
    super(context);
  }

  protected override customizeDpopProof(_endpoint: Endpoint, { claims }: JwtParts): void {
    claims.iat = Math.floor(this.op.clock.now() / 1000) + this.offsetSeconds;
  }
}

/** AddInvalidDpopJktToAuthorizationEndpointRequest: the thumbprint of a key nobody uses. */
async function otherJkt(): Promise<string> {
  return (await generateDpopKey()).jkt;
}

/**
 * fapi2-security-profile-final-ensure-mismatched-dpop-jkt-fails: a pushed request whose dpop_jkt
 * is not the key of the proof sent with it is refused by the PAR endpoint (RFC 9449 §10.1).
 */
export class Fapi2MismatchedDpopJktFails extends Fapi2ServerTest {
  protected override useDpopAuthCodeBinding = true;
  private jkt = '';

  protected override async onConfigure(): Promise<void> {
    this.jkt = await otherJkt();
  }

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    request.dpop_jkt = this.jkt;
  }

  protected override async processParResponse(answer: HttpAnswer): Promise<void> {
    this.run.check('FAILURE', fapi.EnsurePARInvalidRequestOrInvalidDpopProof, answer);
    this.run.finish();
  }
}

/**
 * fapi2-security-profile-final-ensure-token-endpoint-fails-with-mismatched-dpop-jkt: the code is
 * bound by dpop_jkt to another key than the token request's proof.
 */
export class Fapi2TokenEndpointMismatchedDpopJkt extends Fapi2TokenEndpointTest {
  private jkt = '';

  protected override async onConfigure(): Promise<void> {
    this.jkt = await otherJkt();
  }

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    request.dpop_jkt = this.jkt;
  }

  protected override async processTokenEndpointResponse(): Promise<void> {
    this.run.check(
      'FAILURE',
      fapi.CheckTokenEndpointReturnedInvalidRequestGrantOrDPopProofError,
      this.tokenAnswer,
    );
  }
}

/**
 * fapi2-security-profile-final-ensure-token-endpoint-fails-with-mismatched-dpop-proof-jkt: the
 * code is bound by the PAR proof's key, and the token request's proof is by a new key.
 */
export class Fapi2TokenEndpointMismatchedDpopProofJkt extends Fapi2TokenEndpointTest {
  protected override useDpopAuthCodeBinding = true;

  protected override async exchangeAuthorizationCode(): Promise<void> {
    await this.replaceDpopKey();
    await super.exchangeAuthorizationCode();
  }

  protected override async processTokenEndpointResponse(): Promise<void> {
    this.run.check(
      'FAILURE',
      fapi.CheckTokenEndpointReturnedInvalidRequestGrantOrDPopProofError,
      this.tokenAnswer,
    );
  }
}

/** fapi2-security-profile-final-ensure-dpopproof-at-par-endpoint-binding-success. */
export class Fapi2DpopProofAtParBindingSuccess extends Fapi2ServerTest {
  protected override useDpopAuthCodeBinding = true;
}

/** fapi2-security-profile-final-ensure-dpop-auth-code-binding-success: dpop_jkt and PAR proof agree. */
export class Fapi2DpopAuthCodeBindingSuccess extends Fapi2ServerTest {
  protected override useDpopAuthCodeBinding = true;

  protected override async onConfigure(): Promise<void> {
    await this.dpopKey();
  }

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    request.dpop_jkt = this.dpopKeys.get(this.state.client.id)?.jkt;
  }
}

/**
 * fapi2-security-profile-final-ensure-holder-of-key-required: a token request with the client's
 * authentication but no DPoP proof is refused (FAPI 2.0 SP §5.3.2.1-4).
 */
export class Fapi2HolderOfKeyRequired extends Fapi2ServerTest {
  protected override async performPostAuthorizationFlow(): Promise<void> {
    const { run, state } = this;
    const answer = await this.callTokenEndpoint(this.authorizationCodeRequest(), { dpop: false });
    run.check('FAILURE', fapi.EnsureHttpStatusCodeIs4xx, answer);
    run.check('WARNING', fapi.CheckTokenEndpointHttpStatus400or401, answer);
    if (run.check('WARNING', tok.CheckTokenEndpointReturnedJsonContentType, state)) {
      run.check(
        'FAILURE',
        fapi.CheckTokenEndpointReturnedInvalidRequestGrantOrDPopProofError,
        answer,
      );
      run.check('FAILURE', tok.ValidateErrorFromTokenEndpointResponseError, state);
      run.check('WARNING', tok.tokenErrorFields.containsCrLfTab, state);
      run.check('FAILURE', tok.tokenErrorFields.description, state);
      run.check('FAILURE', tok.tokenErrorFields.uri, state);
    }
    run.finish();
  }
}

/** How one attempt of the negative tests changes the resource request. */
interface ProofChange {
  /** The header and claims before signing. */
  parts?: (parts: JwtParts) => void | Promise<void>;
  /** The signed proof as sent (or null for none). */
  proof?: (proof: string) => string | null;
  scheme?: string;
  /** Extra DPoP header values (more than one proof). */
  extraProof?: boolean;
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const decodeHeader = (proof: string) =>
  JSON.parse(Buffer.from(proof.split('.')[0] ?? '', 'base64url').toString()) as Record<
    string,
    unknown
  >;

/**
 * fapi2-security-profile-final-dpop-negative-tests: after a normal resource request, one request
 * per way a proof can be wrong (RFC 9449 §4.3, §7.1), each of which the resource must refuse with
 * 400 or 401, and a few it must accept. A "should" of the specification is checked at WARNING,
 * as the suite does.
 */
export class Fapi2DpopNegativeTests extends Fapi2ServerTest {
  private change: ProofChange = {};

  protected override customizeDpopProof(endpoint: Endpoint, parts: JwtParts): void | Promise<void> {
    if (endpoint === 'resource') return this.change.parts?.(parts);
  }

  private async attempt(
    change: ProofChange,
    expectSuccess: boolean,
    shouldFail: boolean,
  ): Promise<void> {
    this.change = change;
    const endpoint = String(this.state.server.userinfo_endpoint);
    const token = this.state.accessToken ?? '';
    const signed = await this.proof('resource', 'GET', endpoint, token);
    const proof = change.proof ? change.proof(signed) : signed;
    const sent =
      change.extraProof && proof !== null
        ? `${proof}, ${await this.proof('resource', 'GET', endpoint, token)}`
        : proof;
    this.change = {};
    const answer = await this.callProtectedResource({
      proof: sent,
      ...(change.scheme ? { scheme: change.scheme } : {}),
    });
    const level = shouldFail ? 'FAILURE' : 'WARNING';
    const check = expectSuccess
      ? fapi.EnsureHttpStatusCodeIs200or201
      : fapi.EnsureHttpStatusCodeIs400or401;
    this.run.check(level, check, answer);
  }

  protected override async requestProtectedResource(): Promise<void> {
    await super.requestProtectedResource();
    const now = () => Math.floor(this.op.clock.now() / 1000);
    const endpoint = String(this.state.server.userinfo_endpoint);
    const without = (where: 'header' | 'claims', name: string) => (parts: JwtParts) => {
      delete parts[where][name];
    };
    const set = (where: 'header' | 'claims', name: string, value: unknown) => (parts: JwtParts) => {
      parts[where][name] = value;
    };
    // A header named DPOP is the same header: fetch sends header names as they are meant.
    await this.attempt({}, true, false);
    await this.attempt({ extraProof: true }, false, true);
    await this.attempt({ proof: () => 'not-a-well-formed-jwt' }, false, true);
    await this.attempt({ parts: without('header', 'typ') }, false, true);
    await this.attempt(
      {
        proof: (proof) => {
          const [, payload, signature] = proof.split('.');
          const { alg: _alg, ...header } = decodeHeader(proof);
          return `${base64url(header)}.${payload}.${signature}`;
        },
      },
      false,
      true,
    );
    for (const [where, name] of [
      ['header', 'jwk'],
      ['claims', 'jti'],
      ['claims', 'htm'],
      ['claims', 'htu'],
      ['claims', 'iat'],
      ['claims', 'ath'],
    ] as const) {
      await this.attempt({ parts: without(where, name) }, false, true);
    }
    await this.attempt({ parts: set('header', 'typ', 'JWT') }, false, true);
    await this.attempt(
      {
        proof: (proof) => {
          const [, payload] = proof.split('.');
          return `${base64url({ ...decodeHeader(proof), alg: 'none' })}.${payload}.`;
        },
      },
      false,
      true,
    );
    await this.attempt(
      {
        proof: (proof) => {
          const [header, payload, signature = ''] = proof.split('.');
          const flipped = `${signature.at(0) === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
          return `${header}.${payload}.${flipped}`;
        },
      },
      false,
      true,
    );
    const key = await this.dpopKey();
    await this.attempt({ parts: set('header', 'jwk', key.privateJwk) }, false, true);
    await this.attempt({ parts: set('claims', 'htm', 'PUT') }, false, true);
    await this.attempt({ parts: set('claims', 'htu', `${endpoint}?foo=bar#baz`) }, true, true);
    await this.attempt({ parts: set('claims', 'htu', endpoint) }, true, true);
    await this.attempt(
      { parts: set('claims', 'htu', `${new URL(endpoint).origin}/other`) },
      false,
      true,
    );
    await this.attempt({ parts: set('claims', 'iat', now() + 3600) }, false, true);
    await this.attempt({ parts: set('claims', 'iat', now() - 3600) }, false, true);
    const jti = randomUUID();
    await this.attempt({ parts: set('claims', 'jti', jti) }, true, true);
    await this.attempt({ parts: set('claims', 'jti', jti) }, false, false);
    await this.attempt({ parts: set('claims', 'ath', 'incorrect') }, false, true);
    const other = await generateDpopKey();
    await this.signedByAnotherKey(other);
    await this.attempt(
      {
        parts: ({ header, claims }) => {
          header.extra = 'value';
          claims.extra = 'value';
        },
      },
      true,
      true,
    );
    const url = new URL(endpoint);
    await this.attempt(
      {
        parts: set(
          'claims',
          'htu',
          `${url.protocol.toUpperCase()}//${url.host.toUpperCase()}${url.pathname}`,
        ),
      },
      true,
      false,
    );
    await this.attempt(
      { parts: set('claims', 'htu', `${url.origin}:443${url.pathname}`) },
      true,
      false,
    );
    await this.attempt({ proof: () => null }, false, true);
    await this.attempt({ proof: () => null, scheme: 'Bearer' }, false, true);
    await this.attempt({}, true, true);
  }

  /** GenerateNewSignKey: a proof by a key the token is not bound to. */
  private async signedByAnotherKey(other: Awaited<ReturnType<typeof generateDpopKey>>) {
    const id = this.state.client.id;
    const own = await this.dpopKey();
    this.dpopKeys.set(id, other);
    try {
      await this.attempt({}, false, true);
    } finally {
      this.dpopKeys.set(id, own);
    }
  }
}
