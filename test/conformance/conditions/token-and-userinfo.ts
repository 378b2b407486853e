import { condition, fail } from '../support/checks.js';
import type { FlowState, HttpAnswer } from '../support/state.js';
import { errorFieldChecks, minimumEntropy } from './authorization-response.js';
import { checkUpdatedAt, validateStandardClaims, verifyScopeClaims } from './claims.js';

/** The suite's checks of token endpoint and userinfo answers. */

function token(state: FlowState): HttpAnswer & { json: Record<string, unknown> } {
  if (!state.token?.json) fail('no JSON answer from the token endpoint');
  return state.token as HttpAnswer & { json: Record<string, unknown> };
}

const mediaType = (answer: HttpAnswer | undefined) =>
  answer?.headers.get('content-type')?.split(';')[0]?.trim();

export const tokenStatusIs = (status: 200 | 400) =>
  condition(`CheckTokenEndpointHttpStatus${status}`, (state: FlowState) => {
    if (state.token?.status !== status) fail(`the token endpoint answered ${state.token?.status}`);
  });

export const CheckTokenEndpointReturnedJsonContentType = condition(
  'CheckTokenEndpointReturnedJsonContentType',
  (state: FlowState) => {
    if (mediaType(state.token) !== 'application/json')
      fail(`content-type ${mediaType(state.token)}`);
  },
);

export const CheckTokenEndpointCacheHeaders = condition(
  'CheckTokenEndpointCacheHeaders',
  (state: FlowState) => {
    const cacheControl = state.token?.headers.get('cache-control') ?? '';
    if (!cacheControl.split(',').some((part) => part.trim() === 'no-store')) {
      fail(`cache-control is "${cacheControl}"`);
    }
  },
);

export const CheckIfTokenEndpointResponseError = condition(
  'CheckIfTokenEndpointResponseError',
  (state: FlowState) => {
    if (token(state).json.error)
      fail(`the token endpoint answered ${String(token(state).json.error)}`);
  },
);

export const CheckForAccessTokenValue = condition(
  'CheckForAccessTokenValue',
  (state: FlowState) => {
    if (!token(state).json.access_token) fail('no access_token');
    if (!token(state).json.token_type) fail('no token_type');
  },
);

export const ExtractExpiresInFromTokenEndpointResponse = condition(
  'ExtractExpiresInFromTokenEndpointResponse',
  (state: FlowState) => {
    if (token(state).json.expires_in === undefined) fail('no expires_in (RFC 6749 recommends it)');
  },
);

export const ValidateExpiresIn = condition('ValidateExpiresIn', (state: FlowState) => {
  const expiresIn = token(state).json.expires_in;
  if (expiresIn === undefined) return;
  if (typeof expiresIn !== 'number') fail('expires_in is not a number');
  if (expiresIn <= 0) fail('expires_in is not positive');
  if (expiresIn > 31_536_000) fail('expires_in is more than a year');
});

export const CheckForRefreshTokenValue = condition(
  'CheckForRefreshTokenValue',
  (state: FlowState) => {
    if (!token(state).json.refresh_token) fail('no refresh token');
  },
);

export const ExtractIdTokenFromTokenResponse = condition(
  'ExtractIdTokenFromTokenResponse',
  (state: FlowState) => {
    if (typeof token(state).json.id_token !== 'string') fail('no id_token in the token response');
  },
);

export const VerifyIdTokenSubConsistentHybridFlow = condition(
  'VerifyIdTokenSubConsistentHybridFlow',
  (state: FlowState) => {
    if (state.authorizationIdToken?.claims.sub !== state.tokenIdToken?.claims.sub) {
      fail('the two ID tokens name different subjects');
    }
  },
);

export const CheckTokenTypeIsBearer = condition('CheckTokenTypeIsBearer', (state: FlowState) => {
  if (String(token(state).json.token_type).toLowerCase() !== 'bearer')
    fail('token_type is not Bearer');
});

export const EnsureMinimumAccessTokenEntropy = minimumEntropy(
  'EnsureMinimumAccessTokenEntropy',
  (state) => state.token?.json?.access_token as string | undefined,
);

export const EnsureMinimumRefreshTokenEntropy = minimumEntropy(
  'EnsureMinimumRefreshTokenEntropy',
  (state) => state.token?.json?.refresh_token as string | undefined,
);

export const EnsureMinimumRefreshTokenLength = condition(
  'EnsureMinimumRefreshTokenLength',
  (state: FlowState) => {
    if (Buffer.byteLength(String(token(state).json.refresh_token ?? '')) * 8 < 128) {
      fail('the refresh token is under 128 bits');
    }
  },
);

/** RFC 6749 Appendix A.12 and A.17: VSCHAR only. */
const vschar = (name: string, field: 'access_token' | 'refresh_token') =>
  condition(name, (state: FlowState) => {
    const value = token(state).json[field];
    if (value !== undefined && !/^[\x20-\x7e]+$/.test(String(value)))
      fail(`${field} outside VSCHAR`);
  });

export const EnsureAccessTokenContainsAllowedCharactersOnly = vschar(
  'EnsureAccessTokenContainsAllowedCharactersOnly',
  'access_token',
);
export const EnsureRefreshTokenContainsAllowedCharactersOnly = vschar(
  'EnsureRefreshTokenContainsAllowedCharactersOnly',
  'refresh_token',
);

export const CheckErrorFromTokenEndpointResponseErrorInvalidGrant = condition(
  'CheckErrorFromTokenEndpointResponseErrorInvalidGrant',
  (state: FlowState) => {
    if (token(state).json.error !== 'invalid_grant')
      fail(`error ${String(token(state).json.error)}`);
  },
);

export const ValidateErrorFromTokenEndpointResponseError = condition(
  'ValidateErrorFromTokenEndpointResponseError',
  (state: FlowState) => {
    const error = token(state).json.error;
    if (typeof error !== 'string' || error === '') fail('no error field');
    if (!/^[\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(error)) fail('error outside the RFC 6749 set');
  },
);

export const tokenErrorFields = errorFieldChecks(
  'FromTokenEndpointResponseError',
  (state) => state.token?.json ?? {},
);

// userinfo

export const userinfoStatusIs200 = condition('EnsureHttpStatusCodeIs200', (state: FlowState) => {
  if (state.userinfo?.status !== 200) fail(`userinfo answered ${state.userinfo?.status}`);
});

export const EnsureContentTypeJson = condition('EnsureContentTypeJson', (state: FlowState) => {
  if (mediaType(state.userinfo) !== 'application/json')
    fail(`content-type ${mediaType(state.userinfo)}`);
});

export const ExtractUserInfoFromUserInfoEndpointResponse = condition(
  'ExtractUserInfoFromUserInfoEndpointResponse',
  (state: FlowState) => {
    if (!state.userinfo?.json) fail('the userinfo answer is not a JSON object');
    state.userinfoClaims = state.userinfo.json;
  },
);

function userinfo(state: FlowState): Record<string, unknown> {
  if (!state.userinfoClaims) fail('no userinfo claims');
  return state.userinfoClaims;
}

export const ValidateUserInfoStandardClaims = condition(
  'ValidateUserInfoStandardClaims',
  (state: FlowState) => validateStandardClaims(userinfo(state), 'userinfo'),
);

export const EnsureUserInfoContainsSub = condition(
  'EnsureUserInfoContainsSub',
  (state: FlowState) => {
    if (!userinfo(state).sub) fail('no sub in userinfo');
  },
);

export const EnsureUserInfoUpdatedAtValid = condition(
  'EnsureUserInfoUpdatedAtValid',
  (state: FlowState) => checkUpdatedAt(userinfo(state).updated_at, state.now, 'userinfo'),
);

export const EnsureMemberValuesInClaimNameReferenceToMemberNamesInClaimSources = condition(
  'EnsureMemberValuesInClaimNameReferenceToMemberNamesInClaimSources',
  (state: FlowState) => {
    const names = userinfo(state)._claim_names as Record<string, string> | undefined;
    const sources = userinfo(state)._claim_sources as Record<string, unknown> | undefined;
    if (!names && !sources) return;
    if (!names || !sources) fail('_claim_names and _claim_sources must come together');
    const referenced = new Set(Object.values(names));
    const unreferenced = Object.keys(sources).filter((source) => !referenced.has(source));
    if (unreferenced.length > 0) fail(`unreferenced claim sources ${unreferenced.join(', ')}`);
  },
);

export const sameSubAsIdToken = (from: 'authorizationIdToken' | 'tokenIdToken') =>
  condition(
    from === 'authorizationIdToken'
      ? 'VerifyUserInfoAndIdTokenInAuthorizationEndpointSameSub'
      : 'VerifyUserInfoAndIdTokenInTokenEndpointSameSub',
    (state: FlowState) => {
      if (userinfo(state).sub !== state[from]?.claims.sub) fail('userinfo names another subject');
    },
  );

export const VerifyScopesReturnedInUserInfoClaims = condition(
  'VerifyScopesReturnedInUserInfoClaims',
  (state: FlowState) => verifyScopeClaims(userinfo(state), String(state.request.scope), 'userinfo'),
);

const userinfoName = (name: string, wanted: boolean) =>
  condition(name, (state: FlowState) => {
    if ((userinfo(state).name !== undefined) !== wanted)
      fail(wanted ? 'no name' : 'an unrequested name');
  });

export const EnsureUserInfoContainsName = userinfoName('EnsureUserInfoContainsName', true);
export const EnsureUserInfoDoesNotContainName = userinfoName(
  'EnsureUserInfoDoesNotContainName',
  false,
);
