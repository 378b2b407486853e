import { randomBytes } from 'node:crypto';
import { unknownClaims } from '../../conditions/claims.js';
import * as fapi from '../../conditions/fapi2.js';
import * as idt from '../../conditions/id-token.js';
import * as tok from '../../conditions/token-and-userinfo.js';
import { condition, fail } from '../../support/checks.js';
import { Fapi2ServerTest } from '../../support/fapi2-server-test.js';

/** OpenID Connect Core §5.1: the standard claims the suite asks for when a server lists them. */
const OIDC_CLAIMS = [
  'sub',
  'name',
  'given_name',
  'family_name',
  'middle_name',
  'nickname',
  'preferred_username',
  'profile',
  'picture',
  'website',
  'email',
  'email_verified',
  'gender',
  'birthdate',
  'zoneinfo',
  'locale',
  'phone_number',
  'phone_number_verified',
  'address',
  'updated_at',
];

/** Each way OpenID Connect Core §5.5.1 lets a claim be asked for, in turn (the suite's cycle). */
const REQUEST_FORMS = [
  null,
  {},
  { essential: true },
  { [randomBytes(5).toString('hex')]: randomBytes(5).toString('hex') },
  { essential: false },
];
const requests = (names: readonly string[]) =>
  Object.fromEntries(names.map((name, i) => [name, REQUEST_FORMS[i % REQUEST_FORMS.length]]));

const random = () => randomBytes(8).toString('base64url');

/** What the ID token and userinfo said of the user together. */
interface IdentityClaims {
  requested: readonly string[];
  returned: Record<string, unknown>;
}

const EnsureIdentityClaimsContainRequestedClaims = condition(
  'EnsureIdentityClaimsContainRequestedClaims',
  ({ requested, returned }: IdentityClaims) => {
    const missing = requested.filter((name) => !(name in returned));
    if (missing.length > 0) fail(`requested claims not returned: ${missing.join(', ')}`);
  },
);
const unexpected = (name: string, where: string) =>
  condition(name, (claims: Record<string, unknown>) => {
    const unknown = unknownClaims(claims);
    if (unknown.length > 0) fail(`${where} has claims no standard names: ${unknown.join(', ')}`);
  });
const CheckForUnexpectedClaimsInUserinfo = unexpected(
  'CheckForUnexpectedClaimsInUserinfo',
  'userinfo',
);
const CheckForUnexpectedClaimsInIdToken = unexpected(
  'CheckForUnexpectedClaimsInIdToken',
  'the ID token',
);

/**
 * fapi2-security-profile-final-test-claims-parameter-identity-claims: every standard claim the
 * server lists, asked for in the ID token and at userinfo by the `claims` parameter (each way it
 * can be asked), and a request in an unknown place, which must be ignored (OIDC Core §5.5).
 */
export class Fapi2ClaimsParameterIdentityClaims extends Fapi2ServerTest {
  private requested: string[] = [];

  protected override async onConfigure(): Promise<void> {
    const { server } = this.state;
    if (server.claims_parameter_supported !== true)
      this.run.skip('claims_parameter_supported is not true');
    const supported = (server.claims_supported as string[] | undefined) ?? [];
    this.requested = OIDC_CLAIMS.filter((name) => supported.includes(name));
    if (this.requested.length === 0) this.run.skip('claims_supported lists no standard claim');
  }

  protected override customizeAuthorizationRequest(request: Record<string, unknown>): void {
    request.claims = {
      id_token: requests(this.requested),
      userinfo: requests(this.requested),
      [random()]: { [random()]: null },
    };
  }

  protected override async requestProtectedResource(): Promise<void> {
    const { run, state } = this;
    const fromIdToken = idt.idTokenIdentityClaims(state);
    const answer = await this.callProtectedResource();
    state.userinfo = answer;
    run.check('FAILURE', tok.userinfoStatusIs200, state);
    run.check('FAILURE', fapi.EnsureContentTypeJson, answer);
    run.require(tok.ExtractUserInfoFromUserInfoEndpointResponse, state);
    run.check('FAILURE', tok.ValidateUserInfoStandardClaims, state);
    run.check('WARNING', CheckForUnexpectedClaimsInUserinfo, state.userinfoClaims ?? {});
    run.check('FAILURE', tok.EnsureUserInfoContainsSub, state);
    run.check('FAILURE', tok.EnsureUserInfoUpdatedAtValid, state);
    run.check(
      'FAILURE',
      tok.EnsureMemberValuesInClaimNameReferenceToMemberNamesInClaimSources,
      state,
    );
    run.check('FAILURE', tok.sameSubAsIdToken('tokenIdToken'), state);
    const returned = { ...fromIdToken, ...state.userinfoClaims };
    run.check('WARNING', EnsureIdentityClaimsContainRequestedClaims, {
      requested: this.requested,
      returned,
    });
    run.check('WARNING', CheckForUnexpectedClaimsInIdToken, fromIdToken);
  }
}
