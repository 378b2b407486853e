import type { ModuleContext, ServerTest } from '../support/server-test.js';
import {
  OidccCodeReuse,
  OidccNonceOptionalForCode,
  OidccNonceRequiredFails,
  OidccPromptNoneNotLoggedIn,
  OidccResponseTypeMissing,
  OidccUnregisteredRedirectUri,
} from './error-flows.js';
import {
  ExtraParametersTest,
  loginHint,
  OidccAcrValues,
  OidccAlternateHappyFlow,
  OidccIdTokenSignature,
  OidccPostRequest,
  OidccScopeEmail,
  OidccServer,
  OidccServerClientSecretPost,
  OidccUserInfo,
  OidccValidPkce,
  ReturnedClaimsTest,
} from './happy-flows.js';
import {
  type EndSessionRequest,
  fakeIdToken,
  OidccBackChannelRpInitiatedLogout,
  OidccRpInitiatedLogout,
  unsignedCopy,
} from './logout.js';
import {
  OidccClaimsEssential,
  OidccRequestObjectRedirectUri,
  OidccUnsignedRequestObject,
} from './optional-features.js';
import { OidccRefreshToken } from './refresh-token.js';
import { OidccReauthentication, OidccSameAuthTwice } from './two-authorizations.js';

/** Each module of the OP certification plans that drives the authorization endpoint, by its id. */
export const SERVER_MODULES: ReadonlyMap<string, (context: ModuleContext) => ServerTest> = new Map<
  string,
  (context: ModuleContext) => ServerTest
>([
  ['oidcc-server', (c) => new OidccServer(c)],
  ['oidcc-server-client-secret-post', (c) => new OidccServerClientSecretPost(c)],
  ['oidcc-response-type-missing', (c) => new OidccResponseTypeMissing(c)],
  ['oidcc-idtoken-signature', (c) => new OidccIdTokenSignature(c)],
  ['oidcc-userinfo-get', (c) => new OidccUserInfo(c, 'get')],
  ['oidcc-userinfo-post-header', (c) => new OidccUserInfo(c, 'post-header')],
  ['oidcc-userinfo-post-body', (c) => new OidccUserInfo(c, 'post-body')],
  [
    'oidcc-ensure-request-without-nonce-succeeds-for-code-flow',
    (c) => new OidccNonceOptionalForCode(c),
  ],
  ['oidcc-ensure-request-without-nonce-fails', (c) => new OidccNonceRequiredFails(c)],
  ['oidcc-scope-profile', (c) => new ReturnedClaimsTest(c, 'openid profile')],
  ['oidcc-scope-email', (c) => new OidccScopeEmail(c)],
  ['oidcc-scope-address', (c) => new ReturnedClaimsTest(c, 'openid address')],
  ['oidcc-scope-phone', (c) => new ReturnedClaimsTest(c, 'openid phone')],
  ['oidcc-scope-all', (c) => new ReturnedClaimsTest(c, 'openid email phone address profile')],
  ['oidcc-alternate-happy-flow', (c) => new OidccAlternateHappyFlow(c)],
  ['oidcc-display-page', (c) => new ExtraParametersTest(c, () => ({ display: 'page' }))],
  ['oidcc-display-popup', (c) => new ExtraParametersTest(c, () => ({ display: 'popup' }))],
  ['oidcc-prompt-login', (c) => new OidccReauthentication(c, 'prompt=login')],
  ['oidcc-prompt-none-not-logged-in', (c) => new OidccPromptNoneNotLoggedIn(c)],
  ['oidcc-prompt-none-logged-in', (c) => new OidccSameAuthTwice(c, 'prompt=none')],
  ['oidcc-max-age-1', (c) => new OidccReauthentication(c, 'max_age=1')],
  ['oidcc-max-age-10000', (c) => new OidccSameAuthTwice(c, 'max_age=10000')],
  [
    'oidcc-ensure-request-with-unknown-parameter-succeeds',
    (c) => new ExtraParametersTest(c, () => ({ extra: 'foobar' })),
  ],
  ['oidcc-id-token-hint', (c) => new OidccSameAuthTwice(c, 'id_token_hint')],
  ['oidcc-login-hint', (c) => new ExtraParametersTest(c, loginHint)],
  ['oidcc-ui-locales', (c) => new ExtraParametersTest(c, () => ({ ui_locales: 'se' }))],
  ['oidcc-claims-locales', (c) => new ExtraParametersTest(c, () => ({ claims_locales: 'se' }))],
  ['oidcc-ensure-request-with-acr-values-succeeds', (c) => new OidccAcrValues(c)],
  ['oidcc-codereuse', (c) => new OidccCodeReuse(c, 0)],
  ['oidcc-codereuse-30seconds', (c) => new OidccCodeReuse(c, 30)],
  ['oidcc-ensure-registered-redirect-uri', (c) => new OidccUnregisteredRedirectUri(c)],
  ['oidcc-ensure-post-request-succeeds', (c) => new OidccPostRequest(c)],
  [
    'oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported',
    (c) => new OidccUnsignedRequestObject(c),
  ],
  ['oidcc-claims-essential', (c) => new OidccClaimsEssential(c)],
  ['oidcc-ensure-request-object-with-redirect-uri', (c) => new OidccRequestObjectRedirectUri(c)],
  ['oidcc-refresh-token', (c) => new OidccRefreshToken(c)],
  ['oidcc-ensure-request-with-valid-pkce-succeeds', (c) => new OidccValidPkce(c)],
  ...logoutModules(),
  ['oidcc-backchannel-rp-initiated-logout', (c) => new OidccBackChannelRpInitiatedLogout(c)],
]);

function logoutModules(): Array<[string, (context: ModuleContext) => ServerTest]> {
  const without =
    (...names: string[]) =>
    (request: EndSessionRequest) => {
      for (const name of names) delete request[name];
    };
  const notRegistered = 'ExpectPostLogoutRedirectUriNotRegisteredErrorPage';
  const invalidHint = 'ExpectInvalidIdTokenHintErrorPage';
  const modules: Array<
    [
      string,
      ConstructorParameters<typeof OidccRpInitiatedLogout>[1],
      ConstructorParameters<typeof OidccRpInitiatedLogout>[2],
      string?,
    ]
  > = [
    ['oidcc-rp-initiated-logout', () => {}, 'redirect-with-state'],
    [
      'oidcc-rp-initiated-logout-bad-post-logout-redirect-uri',
      (request) => {
        request.post_logout_redirect_uri = `${new URL(request.post_logout_redirect_uri ?? '').origin}/bad_post_logout_redirect_uri`;
      },
      'refused',
      notRegistered,
    ],
    [
      'oidcc-rp-initiated-logout-modified-id-token-hint',
      (request) => {
        request.id_token_hint = unsignedCopy(request.id_token_hint ?? '');
      },
      'refused',
      invalidHint,
    ],
    [
      'oidcc-rp-initiated-logout-no-id-token-hint',
      without('id_token_hint'),
      'refused',
      'ExpectIdTokenHintRequiredErrorPage',
    ],
    [
      'oidcc-rp-initiated-logout-no-params',
      without('id_token_hint', 'post_logout_redirect_uri', 'state'),
      'signed-out-page',
    ],
    [
      'oidcc-rp-initiated-logout-no-post-logout-redirect-uri',
      without('post_logout_redirect_uri'),
      'signed-out-page',
    ],
    ['oidcc-rp-initiated-logout-no-state', without('state'), 'redirect-without-state'],
    [
      'oidcc-rp-initiated-logout-only-state',
      without('id_token_hint', 'post_logout_redirect_uri'),
      'signed-out-page',
    ],
    [
      'oidcc-rp-initiated-logout-query-added-to-post-logout-redirect-uri',
      (request) => {
        request.post_logout_redirect_uri = `${request.post_logout_redirect_uri}?foo=bar`;
      },
      'refused',
      notRegistered,
    ],
    [
      'oidcc-rp-initiated-logout-bad-id-token-hint',
      (request, state) => {
        request.id_token_hint = fakeIdToken(state);
      },
      'refused',
      invalidHint,
    ],
  ];
  return modules.map(([id, customize, expectation, placeholder]) => [
    id,
    (c) => new OidccRpInitiatedLogout(c, customize, expectation, placeholder),
  ]);
}
