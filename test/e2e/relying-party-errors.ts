import * as oidc from 'openid-client';
import { expect } from 'vitest';

/** What openid-client rejects `pending` with; fails the test if it resolves instead. */
export function rejection(pending: Promise<unknown>): Promise<unknown> {
  return pending.then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

/** An OAuth error body (RFC 6749 §5.2) that openid-client parsed and surfaced as such. */
export async function expectOAuthError(
  pending: Promise<unknown>,
  expected: { status: number; error: string },
) {
  const thrown = await rejection(pending);
  expect(thrown).toBeInstanceOf(oidc.ResponseBodyError);
  expect(thrown).toMatchObject(expected);
}

/**
 * A 401 with a Basic challenge: openid-client reports the challenge and leaves the body unread,
 * so the `invalid_client` code is only visible on the raw response the error carries.
 */
export async function expectBasicChallenge(pending: Promise<unknown>) {
  const thrown = await rejection(pending);
  expect(thrown).toBeInstanceOf(oidc.WWWAuthenticateChallengeError);
  const challenge = thrown as oidc.WWWAuthenticateChallengeError;
  expect(challenge.status).toBe(401);
  expect(challenge.cause).toEqual([
    { scheme: 'basic', parameters: { realm: 'gatehouse', charset: 'UTF-8' } },
  ]);
  expect(await challenge.response.json()).toMatchObject({ error: 'invalid_client' });
}

/**
 * openid-client reads an introspection body only from a 200: a 400 `{active:false}` (the status of
 * docs/interface.md §7.3) reaches the relying party as a ClientError carrying the response.
 */
export async function expectInactiveAs400(pending: Promise<oidc.IntrospectionResponse>) {
  const thrown = await rejection(pending);
  expect(thrown).toBeInstanceOf(oidc.ClientError);
  expect(thrown).toMatchObject({ code: 'OAUTH_RESPONSE_IS_NOT_CONFORM' });
  const response = (thrown as oidc.ClientError).cause as Response;
  expect(response.status).toBe(400);
  expect(await response.json()).toEqual({ active: false });
}

/** With status 200 (RFC 7662) openid-client hands the `{active:false}` body over as a result. */
export async function expectInactiveAs200(pending: Promise<oidc.IntrospectionResponse>) {
  expect(await pending).toEqual({ active: false });
}
