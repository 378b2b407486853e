import * as disc from '../conditions/discovery.js';
import * as jwks from '../conditions/jwks.js';
import type { ModuleRun } from '../support/checks.js';
import { discover, fetchServerKeys } from '../support/http.js';
import type { CertificationOp } from '../support/op.js';

/** The modules that only read the discovery document (and the JWKS it points to). */

export async function configure(op: CertificationOp, run: ModuleRun, checkResponse: boolean) {
  const { answer, server } = await discover(op, run);
  const discovery: disc.Discovery = { url: op.discoveryUrl, answer, server };
  if (checkResponse) {
    run.check('FAILURE', disc.EnsureDiscoveryEndpointResponseStatusCodeIs200, discovery);
    run.check('FAILURE', disc.CheckDiscoveryEndpointReturnedJsonContentType, discovery);
  }
  return discovery;
}

/** oidcc-discovery-endpoint-verification (static clients). */
async function discoveryEndpointVerification(op: CertificationOp, run: ModuleRun) {
  const d = await configure(op, run, true);
  run.check('FAILURE', disc.OIDCCCheckDiscEndpointResponseTypesSupported, d);
  run.check('FAILURE', disc.CheckDiscEndpointDiscoveryUrl, d);
  run.check('FAILURE', disc.CheckDiscEndpointIssuer, d);
  run.check('FAILURE', disc.CheckDiscEndpointIssuerIsValidUrl, d);
  run.check('FAILURE', disc.ValidateServerMetadataAgainstSchema, d);
  run.check('WARNING', disc.CheckForUnexpectedParametersInServerMetadata, d);
  run.check('FAILURE', disc.CheckDiscEndpointSubjectTypesSupported, d);
  run.check('FAILURE', disc.OIDCCCheckDiscEndpointIdTokenSigningAlgValuesSupported, d);
  run.check('FAILURE', disc.CheckDiscEndpointAuthorizationEndpoint, d);
  run.check('FAILURE', disc.CheckDiscEndpointTokenEndpoint, d);
  // Recommended, not required: absent is a warning, wrong is a failure.
  run.check(
    d.server.userinfo_endpoint === undefined ? 'WARNING' : 'FAILURE',
    disc.CheckDiscEndpointUserinfoEndpoint,
    d,
  );
  if (d.server.registration_endpoint !== undefined) {
    run.check('FAILURE', disc.CheckDiscEndpointRegistrationEndpoint, d);
  }
  run.check('FAILURE', disc.CheckJwksUri, d);
  const serverJwks = await fetchServerKeys(op, run, d.server.jwks_uri);
  for (const [level, check] of jwks.VALIDATE_JWKS_SEQUENCE) run.check(level, check, serverJwks);
  run.check('INFO', disc.CheckDiscEndpointRequestParameterSupported, d);
  run.check('INFO', disc.CheckDiscEndpointRequestUriParameterSupported, d);
  if (d.server.request_object_signing_alg_values_supported !== undefined) {
    run.check(
      'WARNING',
      disc.CheckDiscEndpointRequestObjectSigningAlgValuesSupportedIncludesRS256,
      d,
    );
  }
  run.check('INFO', disc.CheckDiscEndpointClaimsParameterSupported, d);
  run.check('WARNING', disc.OIDCCCheckDiscEndpointClaimsSupported, d);
  run.check('FAILURE', disc.OIDCCCheckDiscEndpointGrantTypesSupported, d);
  run.check(
    d.server.scopes_supported === undefined ? 'WARNING' : 'FAILURE',
    disc.CheckDiscEndpointScopesSupportedContainsOpenId,
    d,
  );
  run.check('FAILURE', disc.CheckDiscEndpointScopesSupportedSyntax, d);
  run.check('FAILURE', disc.CheckDiscEndpointLocalesSyntax, d);
  run.check('WARNING', disc.CheckDiscEndpointLocalesCanonicalCasing, d);
  run.check('FAILURE', disc.CheckDiscEndpointAllEndpointsAreHttps, d);
  run.check('FAILURE', disc.EnsureServerConfigurationCodeChallengeMethodsSupportedIsAnArray, d);
}

/** oidcc-rp-initiated-logout-discovery-endpoint-verification. */
async function rpInitiatedLogoutDiscovery(op: CertificationOp, run: ModuleRun) {
  const d = await configure(op, run, false);
  run.check('FAILURE', disc.CheckDiscEndpointAllEndpointsAreHttps, d);
  run.check('FAILURE', disc.CheckDiscEndSessionEndpoint, d);
}

/** oidcc-session-management-discovery-endpoint-verification. */
async function sessionManagementDiscovery(op: CertificationOp, run: ModuleRun) {
  const d = await configure(op, run, true);
  run.check('FAILURE', disc.CheckDiscCheckSessionIframe, d);
  run.check('FAILURE', disc.CheckDiscEndSessionEndpoint, d);
}

/** oidcc-backchannel-logout-discovery-endpoint-verification. */
async function backchannelLogoutDiscovery(op: CertificationOp, run: ModuleRun) {
  const d = await configure(op, run, false);
  run.check('FAILURE', disc.CheckDiscEndpointAllEndpointsAreHttps, d);
  run.check('FAILURE', disc.CheckDiscEndpointBackchannelLogoutSupported, d);
  // Optional in the specification, required for certification.
  run.check('FAILURE', disc.CheckDiscEndpointBackchannelLogoutSessionSupported, d);
  run.check('FAILURE', disc.CheckDiscEndSessionEndpoint, d);
}

/** oidcc-frontchannel-logout-discovery-endpoint-verification. */
async function frontchannelLogoutDiscovery(op: CertificationOp, run: ModuleRun) {
  const d = await configure(op, run, true);
  run.check('FAILURE', disc.CheckDiscEndpointAllEndpointsAreHttps, d);
  run.check('FAILURE', disc.CheckDiscEndpointFrontchannelLogoutSupported, d);
  run.check('FAILURE', disc.CheckDiscEndpointFrontchannelLogoutSessionSupported, d);
  run.check('FAILURE', disc.CheckDiscEndSessionEndpoint, d);
}

export const DISCOVERY_MODULES: ReadonlyMap<
  string,
  (op: CertificationOp, run: ModuleRun) => Promise<void>
> = new Map([
  ['oidcc-discovery-endpoint-verification', discoveryEndpointVerification],
  ['oidcc-rp-initiated-logout-discovery-endpoint-verification', rpInitiatedLogoutDiscovery],
  ['oidcc-session-management-discovery-endpoint-verification', sessionManagementDiscovery],
  ['oidcc-backchannel-logout-discovery-endpoint-verification', backchannelLogoutDiscovery],
  ['oidcc-frontchannel-logout-discovery-endpoint-verification', frontchannelLogoutDiscovery],
]);
