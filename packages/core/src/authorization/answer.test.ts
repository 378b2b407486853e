import { describe, expect, it } from 'vitest';
import type { RealmContext } from '../context.js';
import type { ErrorDialect } from '../errors/codes.js';
import { answerAuthorization } from './answer.js';
import { redirected, shownAtProvider } from './authorization-error.js';

const ISSUER = 'https://id.example.com/oauth/test';
const TARGET = {
  redirectUri: 'https://app.example.com/cb',
  responseMode: 'query',
  state: 's',
} as const;

const contextIn = (errorDialect: ErrorDialect) =>
  ({ realm: { issuer: ISSUER, errorDialect } }) as unknown as RealmContext;

const answer = (dialect: ErrorDialect, error: Error) =>
  answerAuthorization(contextIn(dialect), TARGET, { method: 'GET' }, () => Promise.reject(error));

describe('answerAuthorization', () => {
  it.each([
    ['interface', 'nonce_required'],
    ['registered', 'invalid_request'],
  ] as const)('redirects an error with its code in the %s dialect', async (dialect, sent) => {
    const response = await answer(dialect, redirected('nonce_required', 'nonce is required'));
    const location = new URL(String(response.headers.location));
    expect(response.status).toBe(302);
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: sent,
      error_description: 'nonce is required',
      state: 's',
      iss: ISSUER,
    });
  });

  it.each([
    ['interface', 'invalid_redirect_uri'],
    ['registered', 'invalid_request'],
  ] as const)('shows an error at the provider in the %s dialect', async (dialect, sent) => {
    const response = await answer(dialect, shownAtProvider('invalid_redirect_uri', 'unknown'));
    expect(response.status).toBe(400);
    expect(response.headers.location).toBeUndefined();
    expect(String(response.body)).toContain(`<code id="error">${sent}</code>`);
  });

  it('lets anything but an OAuthError through', async () => {
    await expect(answer('interface', new Error('boom'))).rejects.toThrow('boom');
  });
});
