import type { ResponseMode, ResponseType, Variant } from './state.js';

/**
 * The OP certification plans of the OpenID Foundation's conformance suite: which modules each
 * runs, with which variants, as its plan classes list them (OIDCCBasicTestPlan and the others).
 * Every variant uses discovery and static clients: the realm's clients are in its config.
 */

export interface PlanEntry {
  module: string;
  /** The discovery modules have none: they only read metadata. */
  variant?: Variant;
}

export interface Plan {
  id: string;
  /** The certification profile the plan is for. */
  profile: string;
  entries: PlanEntry[];
  /** Modules of the plan the suite does not run with static clients, and why. */
  notApplicable: Array<{ module: string; reason: string }>;
}

const variant = (
  responseType: ResponseType,
  clientAuth: Variant['clientAuth'] = 'client_secret_basic',
  responseMode: ResponseMode = 'default',
): Variant => ({ responseType, clientAuth, responseMode });

const entries = (modules: readonly string[], with_: Variant): PlanEntry[] =>
  modules.map((module) => ({ module, variant: with_ }));

const STATIC_CLIENT_ONLY = (modules: string[]) =>
  modules.map((module) => ({ module, reason: 'needs dynamic registration (static_client)' }));

/** The modules every response type runs, in the order of the certification profiles' table. */
const COMMON = [
  'oidcc-scope-profile',
  'oidcc-scope-email',
  'oidcc-scope-address',
  'oidcc-scope-phone',
  'oidcc-scope-all',
];
const REQUEST_PARAMETERS = [
  'oidcc-display-page',
  'oidcc-display-popup',
  'oidcc-prompt-login',
  'oidcc-prompt-none-not-logged-in',
  'oidcc-prompt-none-logged-in',
  'oidcc-max-age-1',
  'oidcc-max-age-10000',
  'oidcc-ensure-request-with-unknown-parameter-succeeds',
  'oidcc-id-token-hint',
  'oidcc-login-hint',
  'oidcc-ui-locales',
  'oidcc-claims-locales',
  'oidcc-ensure-request-with-acr-values-succeeds',
];
const USERINFO = ['oidcc-userinfo-get', 'oidcc-userinfo-post-header', 'oidcc-userinfo-post-body'];
const CODE_REUSE = ['oidcc-codereuse', 'oidcc-codereuse-30seconds'];
const REQUEST_OBJECTS = [
  'oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported',
  'oidcc-claims-essential',
  'oidcc-ensure-request-object-with-redirect-uri',
];

/** oidcc-idtoken-signature is for dynamic clients in the suite; we run it for ours as well. */
const ID_TOKEN_SIGNATURE = 'oidcc-idtoken-signature';

export const BASIC: Plan = {
  id: 'oidcc-basic-certification-test-plan',
  profile: 'Basic OP',
  entries: [
    ...entries(
      [
        'oidcc-server',
        'oidcc-response-type-missing',
        ID_TOKEN_SIGNATURE,
        ...USERINFO,
        'oidcc-ensure-request-without-nonce-succeeds-for-code-flow',
        ...COMMON,
        'oidcc-alternate-happy-flow',
        ...REQUEST_PARAMETERS,
        ...CODE_REUSE,
        'oidcc-ensure-registered-redirect-uri',
        'oidcc-ensure-post-request-succeeds',
      ],
      variant('code'),
    ),
    ...entries(['oidcc-server-client-secret-post'], variant('code', 'client_secret_post')),
    ...entries(
      [...REQUEST_OBJECTS, 'oidcc-refresh-token', 'oidcc-ensure-request-with-valid-pkce-succeeds'],
      variant('code'),
    ),
  ],
  notApplicable: STATIC_CLIENT_ONLY([
    'oidcc-idtoken-unsigned',
    'oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported',
  ]),
};

const implicitModules = [
  'oidcc-server',
  ID_TOKEN_SIGNATURE,
  'oidcc-ensure-request-without-nonce-fails',
  ...COMMON,
  'oidcc-alternate-happy-flow',
  ...REQUEST_PARAMETERS,
  'oidcc-ensure-registered-redirect-uri',
  'oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported',
  'oidcc-ensure-request-object-with-redirect-uri',
  'oidcc-claims-essential',
];

export const IMPLICIT: Plan = {
  id: 'oidcc-implicit-certification-test-plan',
  profile: 'Implicit OP',
  entries: [
    ...entries(implicitModules, variant('id_token')),
    ...entries(implicitModules, variant('id_token token')),
    ...entries([...USERINFO, 'oidcc-response-type-missing'], variant('id_token token')),
  ],
  notApplicable: STATIC_CLIENT_ONLY([
    'oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported',
  ]),
};

/** One run of the hybrid table for a response type. */
function hybridRun(responseType: ResponseType, first: boolean): PlanEntry[] {
  const withoutNonce =
    responseType === 'code token'
      ? 'oidcc-ensure-request-without-nonce-succeeds-for-code-flow'
      : 'oidcc-ensure-request-without-nonce-fails';
  const alternate = first ? ['oidcc-alternate-happy-flow'] : [];
  return [
    ...entries(
      [
        'oidcc-server',
        ...(first ? ['oidcc-response-type-missing'] : []),
        ID_TOKEN_SIGNATURE,
        ...USERINFO,
        withoutNonce,
        ...COMMON,
        ...alternate,
        ...REQUEST_PARAMETERS,
        ...CODE_REUSE,
        'oidcc-ensure-registered-redirect-uri',
      ],
      variant(responseType),
    ),
    ...entries(['oidcc-server-client-secret-post'], variant(responseType, 'client_secret_post')),
    ...entries(
      [
        ...REQUEST_OBJECTS,
        'oidcc-refresh-token',
        ...(first ? ['oidcc-ensure-request-with-valid-pkce-succeeds'] : []),
      ],
      variant(responseType),
    ),
  ];
}

export const HYBRID: Plan = {
  id: 'oidcc-hybrid-certification-test-plan',
  profile: 'Hybrid OP',
  entries: [
    ...hybridRun('code id_token', true),
    ...hybridRun('code token', false),
    ...hybridRun('code id_token token', false),
  ],
  notApplicable: STATIC_CLIENT_ONLY([
    'oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported',
  ]),
};

/** AbstractFormPostTestPlan: the same plan, every response mode switched to form_post. */
function formPost(plan: Plan, id: string): Plan {
  return {
    id,
    profile: 'Form Post OP',
    entries: plan.entries.map(({ module, variant: v }) => ({
      module,
      ...(v ? { variant: { ...v, responseMode: 'form_post' as const } } : {}),
    })),
    notApplicable: plan.notApplicable,
  };
}

export const FORM_POST_BASIC = formPost(BASIC, 'oidcc-formpost-basic-certification-test-plan');
export const FORM_POST_IMPLICIT = formPost(
  IMPLICIT,
  'oidcc-formpost-implicit-certification-test-plan',
);
export const FORM_POST_HYBRID = formPost(HYBRID, 'oidcc-formpost-hybrid-certification-test-plan');

export const CONFIG: Plan = {
  id: 'oidcc-config-certification-test-plan',
  profile: 'Config OP',
  entries: [{ module: 'oidcc-discovery-endpoint-verification' }],
  notApplicable: [],
};

export const RP_INITIATED_LOGOUT: Plan = {
  id: 'oidcc-rp-initiated-logout-certification-test-plan',
  profile: 'RP-Initiated OP',
  entries: [
    { module: 'oidcc-rp-initiated-logout-discovery-endpoint-verification' },
    ...entries(
      [
        'oidcc-rp-initiated-logout',
        'oidcc-rp-initiated-logout-bad-post-logout-redirect-uri',
        'oidcc-rp-initiated-logout-modified-id-token-hint',
        'oidcc-rp-initiated-logout-no-id-token-hint',
        'oidcc-rp-initiated-logout-no-params',
        'oidcc-rp-initiated-logout-no-post-logout-redirect-uri',
        'oidcc-rp-initiated-logout-no-state',
        'oidcc-rp-initiated-logout-only-state',
        'oidcc-rp-initiated-logout-query-added-to-post-logout-redirect-uri',
        'oidcc-rp-initiated-logout-bad-id-token-hint',
      ],
      variant('code'),
    ),
  ],
  notApplicable: [],
};

export const SESSION_MANAGEMENT: Plan = {
  id: 'oidcc-session-management-certification-test-plan',
  profile: 'Session OP',
  entries: [
    { module: 'oidcc-session-management-discovery-endpoint-verification' },
    { module: 'oidcc-session-management-rp-initiated-logout', variant: variant('code') },
  ],
  notApplicable: [],
};

export const BACKCHANNEL_RP_INITIATED_LOGOUT: Plan = {
  id: 'oidcc-backchannel-rp-initiated-logout-certification-test-plan',
  profile: 'Back-Channel OP',
  entries: [
    { module: 'oidcc-backchannel-logout-discovery-endpoint-verification' },
    { module: 'oidcc-backchannel-rp-initiated-logout', variant: variant('code') },
  ],
  notApplicable: [],
};

export const FRONTCHANNEL_RP_INITIATED_LOGOUT: Plan = {
  id: 'oidcc-frontchannel-rp-initiated-logout-certification-test-plan',
  profile: 'Front-Channel OP',
  entries: [
    { module: 'oidcc-frontchannel-logout-discovery-endpoint-verification' },
    { module: 'oidcc-frontchannel-rp-initiated-logout', variant: variant('code') },
  ],
  notApplicable: [],
};
