import { type CibaApproval, formatIssue, OAuthError, zodIssues } from '@gatehouse-oidc/core';
import { z } from 'zod';
import { depthProblem } from '../config/json-depth.js';

/** No spaces: these values end up in ID token claims and are compared as tokens. */
const TOKEN = /^[\x21-\x7e]+$/;

/** The optional body of `POST …/ciba/{auth_req_id}/approve`: how the user authenticated. */
const approvalSchema = z.strictObject({
  amr: z
    .array(
      z
        .string()
        .max(64, 'each value must be at most 64 characters')
        .regex(TOKEN, 'each value must be printable ASCII without spaces'),
    )
    .min(1, 'must list at least one method')
    .max(16, 'must list at most 16 methods')
    .optional(),
  acr: z
    .string()
    .max(255, 'must be at most 255 characters')
    .regex(TOKEN, 'must be printable ASCII without spaces')
    .optional(),
});

/**
 * The approval an authenticator's back end sent: no body (or an empty one) approves without
 * `amr` or `acr`; otherwise a JSON object `{ "amr": [...], "acr": "..." }`. Throws an
 * `invalid_request` OAuthError (400) naming the problem, never echoing the value.
 */
export function parseCibaApproval(
  body: Buffer | undefined,
  contentType: string | undefined,
): CibaApproval {
  if (body === undefined || body.length === 0) return {};
  if (contentType?.split(';', 1)[0]?.trim().toLowerCase() !== 'application/json') {
    throw new OAuthError(
      'invalid_request',
      'the body must be JSON, with Content-Type: application/json',
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw new OAuthError('invalid_request', 'the body is not valid JSON');
  }
  const tooDeep = depthProblem(json);
  if (tooDeep) throw new OAuthError('invalid_request', `the body ${tooDeep}`);
  const parsed = approvalSchema.safeParse(json);
  if (!parsed.success) {
    throw new OAuthError('invalid_request', zodIssues(parsed.error).map(formatIssue).join('; '));
  }
  const { amr, acr } = parsed.data;
  return { ...(amr ? { amr } : {}), ...(acr === undefined ? {} : { acr }) };
}
