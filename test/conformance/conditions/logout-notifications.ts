import { condition, fail } from '../support/checks.js';
import { type FlowState, type Jwt, parseJwt } from '../support/state.js';
import { verifySignature } from './id-token.js';

/**
 * The conditions of the Back-Channel and Front-Channel Logout OP modules: what the relying
 * party's back-channel endpoint received (OIDCBCL §2.4–2.5), and what its front-channel page was
 * loaded with (OIDCFCL §2), each against the ID token of the sign-in.
 */

const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const SKEW_MS = 5 * 60_000;
const DAY_MS = 86_400_000;

/** The POST the back-channel endpoint received: its form fields. */
export interface BackchannelRequest {
  fields: Record<string, string>;
}

/** The logout token and what it is checked against. */
export interface LogoutTokenCheck {
  token: Jwt;
  state: FlowState;
}

/** ExtractLogoutTokenFromBackchannelLogoutRequest: a JWT in `logout_token`. */
export function extractLogoutToken(request: BackchannelRequest): Jwt {
  const value = request.fields.logout_token;
  if (value === undefined) fail('no logout_token in the back-channel request');
  try {
    return parseJwt(value);
  } catch {
    fail('the logout_token is not a JWT');
  }
}

export const ExtractLogoutTokenFromBackchannelLogoutRequest = condition(
  'ExtractLogoutTokenFromBackchannelLogoutRequest',
  (request: BackchannelRequest) => void extractLogoutToken(request),
);

export const CheckForUnexpectedParametersInBackchannelLogoutRequest = condition(
  'CheckForUnexpectedParametersInBackchannelLogoutRequest',
  (request: BackchannelRequest) => {
    const extra = Object.keys(request.fields).filter((name) => name !== 'logout_token');
    if (extra.length > 0) fail(`unexpected parameters: ${extra.join(', ')}`);
  },
);

export const ValidateLogoutTokenSignature = condition(
  'ValidateLogoutTokenSignature',
  ({ token, state }: LogoutTokenCheck) => verifySignature(token, state.serverJwks.keys),
);

/** ValidateLogoutTokenClaims: iss, aud, iat, jti and events as OIDCBCL §2.4 lists them. */
export const ValidateLogoutTokenClaims = condition(
  'ValidateLogoutTokenClaims',
  ({ token, state }: LogoutTokenCheck) => {
    const { claims } = token;
    if (claims.iss === undefined) fail("'iss' claim missing");
    if (claims.iss !== state.server.issuer) fail(`issuer mismatch: ${String(claims.iss)}`);
    const aud = claims.aud;
    if (aud === undefined) fail("'aud' claim missing");
    const audiences = Array.isArray(aud) ? aud : [aud];
    if (!audiences.includes(state.client.id)) fail(`'aud' is not our client id: ${String(aud)}`);
    const iat = claims.iat;
    if (typeof iat !== 'number') fail("'iat' claim missing");
    if (iat * 1000 > state.now + SKEW_MS) fail("'iat' is in the future");
    if (iat * 1000 < state.now - DAY_MS) fail("'iat' is more than a day in the past");
    if (claims.jti === undefined) fail('jti missing');
    const events = claims.events;
    if (events === undefined) fail("'events' claim missing");
    if (typeof events !== 'object' || events === null || Array.isArray(events))
      fail("'events' claim is not a JSON object");
    const entries = Object.entries(events);
    if (entries.length !== 1) fail("'events' does not contain exactly one entry");
    const [name, value] = entries[0] ?? [];
    if (name !== BACKCHANNEL_LOGOUT_EVENT)
      fail(`${BACKCHANNEL_LOGOUT_EVENT} is missing from 'events'`);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      fail(`${BACKCHANNEL_LOGOUT_EVENT} is not a JSON object`);
    if (Object.keys(value).length !== 0) fail(`${BACKCHANNEL_LOGOUT_EVENT} is not an empty object`);
  },
);

const idTokenClaim = (state: FlowState, name: string): unknown => {
  if (!state.idToken) fail('no ID token');
  return state.idToken.claims[name];
};

export const CheckIdTokenSubMatchesLogoutToken = condition(
  'CheckIdTokenSubMatchesLogoutToken',
  ({ token, state }: LogoutTokenCheck) => {
    if (token.claims.sub !== idTokenClaim(state, 'sub'))
      fail('the ID token and the logout token name different subjects');
  },
);

export const CheckIdTokenSidMatchesLogoutToken = condition(
  'CheckIdTokenSidMatchesLogoutToken',
  ({ token, state }: LogoutTokenCheck) => {
    const sid = idTokenClaim(state, 'sid');
    if (sid === undefined) fail('the ID token has no sid');
    if (token.claims.sid !== sid) fail('the ID token and the logout token name different sids');
  },
);

export const CheckLogoutTokenNoNonce = condition(
  'CheckLogoutTokenNoNonce',
  ({ token }: LogoutTokenCheck) => {
    if (token.claims.nonce !== undefined) fail('the logout token has a nonce, which it must not');
  },
);

export const CheckLogoutTokenHasSubOrSid = condition(
  'CheckLogoutTokenHasSubOrSid',
  ({ token }: LogoutTokenCheck) => {
    if (token.claims.sub === undefined && token.claims.sid === undefined)
      fail('the logout token has neither sub nor sid');
  },
);

/** The query the front-channel page was loaded with, and what it is checked against. */
export interface FrontchannelCheck {
  query: Record<string, string>;
  state: FlowState;
}

export const CheckForUnexpectedParametersInFrontchannelLogoutRequest = condition(
  'CheckForUnexpectedParametersInFrontchannelLogoutRequest',
  ({ query }: FrontchannelCheck) => {
    const extra = Object.keys(query).filter((name) => name !== 'iss' && name !== 'sid');
    if (extra.length > 0) fail(`unexpected parameters: ${extra.join(', ')}`);
  },
);

export const ValidateFrontchannelLogoutIss = condition(
  'ValidateFrontchannelLogoutIss',
  ({ query, state }: FrontchannelCheck) => {
    if (!query.iss) fail("'iss' missing from the front-channel logout request");
    if (query.iss !== state.server.issuer) fail(`issuer mismatch: ${query.iss}`);
  },
);

export const CheckIdTokenSidMatchesFrontChannelLogoutRequest = condition(
  'CheckIdTokenSidMatchesFrontChannelLogoutRequest',
  ({ query, state }: FrontchannelCheck) => {
    if (!query.sid) fail("'sid' missing from the front-channel logout request");
    if (query.sid !== idTokenClaim(state, 'sid'))
      fail('the ID token and the front-channel logout request name different sids');
  },
);
