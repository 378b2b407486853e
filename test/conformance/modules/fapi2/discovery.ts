import * as disc from '../../conditions/discovery.js';
import * as fapi from '../../conditions/fapi2.js';
import type { ModuleRun } from '../../support/checks.js';
import type { CertificationOp } from '../../support/op.js';
import { configure } from '../discovery-modules.js';

/**
 * fapi2-security-profile-final-discovery-end-point-verification (FAPI2SPFinalDiscoveryEndpoint-
 * Verification) for DPoP, private_key_jwt, OpenID Connect, unsigned requests.
 */
export async function fapi2DiscoveryEndpointVerification(
  op: CertificationOp,
  run: ModuleRun,
): Promise<void> {
  const d = await configure(op, run, true);
  run.check('FAILURE', disc.CheckDiscEndpointDiscoveryUrl, d);
  run.check('FAILURE', disc.CheckDiscEndpointIssuer, d);
  run.check('FAILURE', disc.ValidateServerMetadataAgainstSchema, d);
  run.check('WARNING', disc.CheckForUnexpectedParametersInServerMetadata, d);
  run.check('FAILURE', fapi.FAPI2CheckDpopSigningAlgValuesSupported, d);
  run.check('FAILURE', fapi.FAPI2CheckDiscEndpointIdTokenSigningAlgValuesSupported, d);
  run.check('FAILURE', fapi.EnsureServerConfigurationSupportsPrivateKeyJwt, d);
  run.check('FAILURE', fapi.FAPI2CheckDiscEndpointTokenEndpointAuthSigningAlgValuesSupported, d);
  if (d.server.userinfo_signing_alg_values_supported !== undefined)
    run.check('FAILURE', fapi.FAPI2CheckDiscEndpointUserinfoSigningAlgValuesSupported, d);
  run.check('FAILURE', disc.CheckDiscEndpointTokenEndpoint, d);
  if (d.server.registration_endpoint !== undefined)
    run.check('FAILURE', disc.CheckDiscEndpointRegistrationEndpoint, d);
  run.check('FAILURE', disc.CheckJwksUri, d);
  run.check('FAILURE', fapi.EnsureServerConfigurationSupportsCodeChallengeMethodS256, d);
  run.check('FAILURE', disc.CheckDiscEndpointScopesSupportedSyntax, d);
  run.check('FAILURE', disc.CheckDiscEndpointLocalesSyntax, d);
  run.check('WARNING', disc.CheckDiscEndpointLocalesCanonicalCasing, d);
  run.check('FAILURE', fapi.CheckDiscEndpointResponseTypeCodeSupported, d);
  run.check('FAILURE', fapi.EnsureAuthorizationResponseIssParameterSupportedIsTrue, d);
  run.check('FAILURE', fapi.CheckDiscEndpointPARSupported, d);
  run.check('FAILURE', fapi.CheckDiscRequirePushedAuthorizationRequestsIsABoolean, d);
  run.check('FAILURE', disc.CheckDiscEndpointAuthorizationEndpoint, d);
  run.check('FAILURE', fapi.CheckDiscEndpointGrantTypesSupportedContainsAuthorizationCode, d);
  run.check('FAILURE', disc.CheckDiscEndpointScopesSupportedContainsOpenId, d);
  run.check('FAILURE', disc.CheckDiscEndpointSubjectTypesSupported, d);
}
