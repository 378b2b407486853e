import { describe, expect, it, vi } from 'vitest';
import { OAuthError, StoreUnavailableError } from './oauth-error.js';
import { errorToResponse } from './to-response.js';

const bodyOf = (response: { body?: string | Uint8Array | undefined }) =>
  JSON.parse(String(response.body));

describe('errorToResponse', () => {
  it('answers an OAuthError with its code, description, status and headers', () => {
    const response = errorToResponse(
      new OAuthError('invalid_token', 'expired', { headers: { 'www-authenticate': 'Bearer' } }),
      () => {},
    );
    expect(response.status).toBe(401);
    expect(response.headers).toMatchObject({
      'cache-control': 'no-store',
      'www-authenticate': 'Bearer',
    });
    expect(bodyOf(response)).toEqual({ error: 'invalid_token', error_description: 'expired' });
  });

  it.each([
    ['interface', 'nonce_required'],
    ['registered', 'invalid_request'],
  ] as const)('spells the code in the %s dialect', (dialect, sent) => {
    const error = new OAuthError('nonce_required', 'nonce is required');
    expect(bodyOf(errorToResponse(error, () => {}, dialect)).error).toBe(sent);
  });

  it('answers a store outage with 503 and Retry-After, and reports it', () => {
    const onError = vi.fn();
    const outage = new StoreUnavailableError();
    const response = errorToResponse(outage, onError);
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(bodyOf(response).error).toBe('temporarily_unavailable');
    expect(onError).toHaveBeenCalledWith(outage);
  });

  it('answers anything else with a fixed server_error, and reports it', () => {
    const onError = vi.fn();
    const response = errorToResponse(new Error('secret detail'), onError);
    expect(response.status).toBe(500);
    expect(bodyOf(response)).toEqual({
      error: 'server_error',
      error_description: 'an unexpected error occurred',
    });
    expect(onError).toHaveBeenCalledOnce();
  });
});
