import { condition, fail } from '../support/checks.js';
import type { FlowState } from '../support/state.js';

/** The suite's checks of what the authorization endpoint sent back to the redirect URI. */

function callback(state: FlowState) {
  if (!state.callback) fail('the authorization endpoint never called the redirect URI');
  return state.callback;
}

export const CheckCallbackHttpMethodIsPost = condition(
  'CheckCallbackHttpMethodIsPost',
  (state: FlowState) => {
    if (callback(state).method !== 'POST') fail(`the callback came as ${callback(state).method}`);
  },
);

export const CheckCallbackContentTypeIsFormUrlEncoded = condition(
  'CheckCallbackContentTypeIsFormUrlEncoded',
  (state: FlowState) => {
    const type = callback(state).contentType;
    if (type !== 'application/x-www-form-urlencoded') fail(`content-type ${String(type)}`);
  },
);

export const RejectAuthCodeInUrlQuery = condition(
  'RejectAuthCodeInUrlQuery',
  (state: FlowState) => {
    if (callback(state).query.code) fail('a code in the URL query');
  },
);

export const RejectErrorInUrlQuery = condition('RejectErrorInUrlQuery', (state: FlowState) => {
  if (callback(state).query.error) fail('an error in the URL query');
});

export const CheckMatchingCallbackParameters = condition(
  'CheckMatchingCallbackParameters',
  (state: FlowState) => {
    for (const [name, value] of new URL(state.redirectUri).searchParams) {
      if (callback(state).query[name] !== value) fail(`the redirect URI's ${name} was lost`);
    }
  },
);

export const ValidateIssIfPresentInAuthorizationResponse = condition(
  'ValidateIssIfPresentInAuthorizationResponse',
  (state: FlowState) => {
    const { iss } = state.response;
    if (iss !== undefined && iss !== state.server.issuer) fail(`iss ${iss} is not the issuer`);
  },
);

export const CheckIfAuthorizationEndpointError = condition(
  'CheckIfAuthorizationEndpointError',
  (state: FlowState) => {
    const { error, error_description } = state.response;
    if (error) fail(`the authorization endpoint answered ${error}: ${error_description ?? ''}`);
  },
);

export const CheckStateInAuthorizationResponse = condition(
  'CheckStateInAuthorizationResponse',
  (state: FlowState) => {
    const actual = state.response.state;
    if (!state.state) {
      if (actual) fail('a state came back though none was sent');
      return;
    }
    if (actual === state.state) return;
    if (
      !actual &&
      ['invalid_request_object', 'invalid_request_uri'].includes(state.response.error ?? '')
    ) {
      return;
    }
    fail(actual ? 'the state came back changed' : 'the state is missing from the response');
  },
);

const present = (name: string, key: 'code' | 'access_token' | 'id_token', what: string) =>
  condition(name, (state: FlowState) => {
    if (!state.response[key]) fail(`no ${what} in the authorization response`);
  });

export const ExtractAuthorizationCodeFromAuthorizationResponse = present(
  'ExtractAuthorizationCodeFromAuthorizationResponse',
  'code',
  'code',
);
export const ExtractAccessTokenFromAuthorizationResponse = present(
  'ExtractAccessTokenFromAuthorizationResponse',
  'access_token',
  'access token',
);
export const ExtractIdTokenFromAuthorizationResponse = present(
  'ExtractIdTokenFromAuthorizationResponse',
  'id_token',
  'ID token',
);

export const EnsureMinimumAuthorizationCodeLength = condition(
  'EnsureMinimumAuthorizationCodeLength',
  (state: FlowState) => {
    if (Buffer.byteLength(state.response.code ?? '') * 8 < 128) fail('the code is under 128 bits');
  },
);

/** Shannon entropy per character times the length: the suite's estimate of randomness. */
export function estimatedEntropy(value: string): number {
  const counts = new Map<string, number>();
  for (const character of value) counts.set(character, (counts.get(character) ?? 0) + 1);
  let perCharacter = 0;
  for (const count of counts.values()) {
    const p = count / value.length;
    perCharacter -= p * Math.log2(p);
  }
  return perCharacter * value.length;
}

/** The suite asks for 128 bits and, measuring crudely, accepts more than 96. */
export const minimumEntropy = (name: string, measured: (state: FlowState) => string | undefined) =>
  condition(name, (state: FlowState) => {
    const value = measured(state);
    if (!value) fail('nothing to measure');
    if (estimatedEntropy(value) <= 96) fail(`entropy of about ${estimatedEntropy(value)} bits`);
  });

export const EnsureMinimumAuthorizationCodeEntropy = minimumEntropy(
  'EnsureMinimumAuthorizationCodeEntropy',
  (state) => state.response.code,
);

// performGenericAuthorizationEndpointErrorResponseValidation

export const EnsureErrorFromAuthorizationEndpointResponse = condition(
  'EnsureErrorFromAuthorizationEndpointResponse',
  (state: FlowState) => {
    if (!state.response.error) fail('an error was expected, none came');
  },
);

export const RejectAuthCodeInAuthorizationEndpointResponse = condition(
  'RejectAuthCodeInAuthorizationEndpointResponse',
  (state: FlowState) => {
    if (callback(state).query.code || callback(state).fragment.code) fail('a code beside an error');
  },
);

const ERROR_RESPONSE_PARAMETERS = [
  'error',
  'error_description',
  'error_uri',
  'state',
  'session_state',
  'iss',
];

export const CheckForUnexpectedParametersInErrorResponseFromAuthorizationEndpoint = condition(
  'CheckForUnexpectedParametersInErrorResponseFromAuthorizationEndpoint',
  (state: FlowState) => {
    if (!state.response.error) fail('an error was expected, none came');
    // The redirect URI's own query (the FAPI plans' dummy1 and dummy2) comes back too.
    const own = new URL(state.redirectUri).searchParams;
    const extra = Object.keys(state.response).filter(
      (name) => !ERROR_RESPONSE_PARAMETERS.includes(name) && !own.has(name),
    );
    if (extra.length > 0) fail(`unexpected parameters in the error response: ${extra.join(', ')}`);
  },
);

/** RFC 6749 §4.1.2.1 and §5.2: the characters error_description and error_uri may use. */
export function errorFieldChecks(
  prefix: string,
  fields: (state: FlowState) => Record<string, unknown>,
) {
  return {
    containsCrLfTab: condition(
      `Check${prefix}ErrorDescriptionContainsCRLFTAB`,
      (state: FlowState) => {
        const description = fields(state).error_description;
        if (typeof description === 'string' && /[\r\n\t]/.test(description)) {
          fail('error_description has CR, LF or TAB');
        }
      },
    ),
    description: condition(`Validate${prefix}ErrorDescription`, (state: FlowState) => {
      const description = fields(state).error_description;
      if (description === undefined || description === '') return;
      if (
        typeof description !== 'string' ||
        !/^[\t\n\r\x20-\x21\x23-\x5b\x5d-\x7e]+$/.test(description)
      ) {
        fail(
          `error_description outside the RFC 6749 character set: ${JSON.stringify(description)}`,
        );
      }
    }),
    uri: condition(`Validate${prefix}ErrorUri`, (state: FlowState) => {
      const uri = fields(state).error_uri;
      if (uri === undefined || uri === '') return;
      if (
        typeof uri !== 'string' ||
        !URL.canParse(uri) ||
        !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(uri)
      ) {
        fail(`error_uri is no URI in the RFC 6749 character set: ${String(uri)}`);
      }
    }),
  };
}

export const authorizationErrorFields = errorFieldChecks(
  'FromAuthorizationEndpointResponseError',
  (state) => state.response,
);

/** CheckErrorFromAuthorizationEndpoint…: the error is one of those allowed. */
export const errorIsOneOf = (name: string, allowed: readonly string[]) =>
  condition(name, (state: FlowState) => {
    const { error } = state.response;
    if (!error) fail('no error field');
    if (!allowed.includes(error)) fail(`error ${error}, expected ${allowed.join(' or ')}`);
  });

export const CheckErrorFromAuthorizationEndpointErrorInvalidRequest = errorIsOneOf(
  'CheckErrorFromAuthorizationEndpointErrorInvalidRequest',
  ['invalid_request'],
);

export const CheckErrorFromAuthorizationEndpointErrorInvalidRequestOrUnsupportedResponseType =
  errorIsOneOf('CheckErrorFromAuthorizationEndpointErrorInvalidRequestOrUnsupportedResponseType', [
    'unsupported_response_type',
    'invalid_request',
  ]);

export const CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface = errorIsOneOf(
  'CheckErrorFromAuthorizationEndpointIsOneThatRequiredAUserInterface',
  ['interaction_required', 'login_required', 'account_selection_required', 'consent_required'],
);
