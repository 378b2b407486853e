import { checkBindingMessage } from './binding-message.js';
import type { Check } from './check.js';
import { checkCibaGrantType } from './ciba-grant-type.js';
import { checkCibaKnownUser } from './ciba-known-user.js';
import { checkClientNotificationToken } from './ciba-notification-token.js';
import { checkCibaScope } from './ciba-scope.js';
import { rejectCibaUnsupported } from './ciba-unsupported.js';
import { checkClaims } from './claims.js';
import { checkDpopJkt } from './dpop-jkt.js';
import { requireFapi2Pkce } from './fapi2-pkce.js';
import { requireFapi2ResponseType } from './fapi2-response-type.js';
import { readHints } from './hints.js';
import { checkIdTokenHint, requireIdTokenHint } from './id-token-hint.js';
import { checkMaxAge } from './max-age.js';
import { checkNonce } from './nonce.js';
import { checkParameterLengths } from './parameter-lengths.js';
import { checkPkce } from './pkce.js';
import { checkPrompt } from './prompt.js';
import { checkPushedRedirectUri } from './pushed-redirect-uri.js';
import { rejectRequestUri } from './pushed-request-uri.js';
import { rejectRepeated } from './reject-repeated.js';
import { rejectUnsupported } from './reject-unsupported.js';
import { checkRequestedExpiry } from './requested-expiry.js';
import { requirePushed } from './require-pushed.js';
import { checkResource } from './resource.js';
import { checkResponseMode } from './response-mode.js';
import { checkResponseType } from './response-type.js';
import type { ResumeState } from './resume-state.js';
import { checkScope } from './scope.js';
import { checkStillRegistered } from './still-registered.js';
import { checkStoredSize } from './stored-size.js';
import { checkUserDecision } from './user-decision.js';

/** The rules of an authorization request, wherever it arrives. */
const REQUEST_RULES = [
  rejectRepeated,
  rejectUnsupported,
  checkParameterLengths,
  checkResponseType,
  requireFapi2ResponseType,
  checkResponseMode,
  checkScope,
  checkResource,
  checkPkce,
  requireFapi2Pkce,
  checkDpopJkt,
  checkNonce,
  checkMaxAge,
  readHints,
  checkClaims,
  checkPrompt,
  checkStoredSize,
  checkIdTokenHint,
] as const;

/**
 * Which rule runs where, in the order a client would want to hear about them: the one place to
 * read what the authorization endpoint, its resume step, PAR, CIBA and the device authorization
 * endpoint check (each rule is one file of this folder, its header naming the rule and its
 * specification). Client authentication, client_id and redirect_uri come before the table
 * (trusted-target.ts, client-auth/).
 */
export const AUTHORIZATION_CHECKS = {
  /** endpoints/authorization.ts, after client_id and redirect_uri are trusted. */
  authorization: [requirePushed, ...REQUEST_RULES],
  /** endpoints/pushed-authorization.ts (RFC 9126), after client authentication. */
  par: [rejectRequestUri, checkPushedRedirectUri, ...REQUEST_RULES],
  /** endpoints/authorization-resume.ts, when the browser comes back from the host's page. */
  resume: [checkStillRegistered, checkUserDecision],
  /** endpoints/backchannel-authentication.ts, after client authentication. */
  ciba: [
    checkCibaGrantType,
    rejectCibaUnsupported,
    checkClientNotificationToken,
    requireIdTokenHint,
    checkCibaKnownUser,
    checkCibaScope,
    checkBindingMessage,
    checkRequestedExpiry,
  ],
  /** endpoints/device-authorization.ts (RFC 8628 §3.1), after client authentication. */
  device: [rejectRepeated, checkParameterLengths, checkScope, checkResource],
} as const satisfies Record<string, readonly Check[] | readonly Check<ResumeState>[]>;
