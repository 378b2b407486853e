import { decodeJwt } from 'jose';
import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESSES } from '../adapters/harnesses.js';
import { clientKeyPair, TEST_ACCOUNTS, testRealm } from '../support/fixtures.js';
import { type RunningGatehouse, startGatehouse } from './gatehouse-server.js';
import { expectOAuthError } from './relying-party-errors.js';
import {
  HOST_DEVICE_PAGE,
  hostDeviceVerificationUrl,
  hostInteractionUrl,
  signInAs,
  userAgent,
} from './user-agent.js';

/**
 * The device authorization grant (RFC 8628) through every framework binding: openid-client v6 is
 * the device, the host app's own verification, login and consent pages the user's side
 * (provider.device.start, then the interactions API). The realm requires DPoP nonces, so the poll
 * that gets the tokens is a DPoP one retried with the server's nonce.
 */

const DEVICE = 'urn:ietf:params:oauth:grant-type:device_code' as const;
const REALM = 'devices';

describe.each(HARNESSES)('device flow with openid-client through $name', (harness) => {
  let gatehouse: RunningGatehouse;
  let tv: oidc.Configuration;
  beforeAll(async () => {
    const base = testRealm(await clientKeyPair(), {
      name: REALM,
      device_poll_interval: 1,
      dpop: { require_nonce: true },
    });
    const client = {
      client_id: 'tv',
      token_endpoint_auth_method: 'none' as const,
      grant_types: [DEVICE, 'refresh_token' as const],
      scope: 'openid profile',
    };
    gatehouse = await startGatehouse(
      harness,
      [{ ...base, clients: [...(base.clients ?? []), client] }],
      {
        accounts: TEST_ACCOUNTS,
        interactionUrl: hostInteractionUrl,
        deviceVerificationUrl: hostDeviceVerificationUrl,
      },
    );
    tv = await oidc.discovery(new URL(gatehouse.issuer(REALM)), 'tv', undefined, oidc.None(), {
      [oidc.customFetch]: gatehouse.fetch,
    });
  });
  afterAll(() => gatehouse?.close());

  it('the user approves on the host pages; the device gets DPoP-bound tokens once', async () => {
    const started = await oidc.initiateDeviceAuthorization(tv, { scope: 'openid profile' });
    expect(started.verification_uri).toBe(HOST_DEVICE_PAGE);
    const dpop = oidc.getDPoPHandle(tv, await oidc.randomDPoPKeyPair('ES256'));
    const polling = oidc.pollDeviceAuthorizationGrant(tv, started, {}, { DPoP: dpop });

    const user = userAgent(gatehouse, signInAs('alice'));
    const back = await user.enterUserCode(REALM, started.user_code.toLowerCase());
    expect(back.searchParams.get('result')).toBe('approved');
    expect(user.interactions.map((shown) => shown.prompt)).toEqual(['login', 'consent']);
    expect(user.interactions[1]?.device).toEqual({ userCode: started.user_code });

    const tokens = await polling;
    expect(tokens.token_type).toBe('dpop');
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      sub: 'alice',
      client_id: 'tv',
      cnf: { jkt: await dpop.calculateThumbprint() },
    });
    await expectOAuthError(oidc.pollDeviceAuthorizationGrant(tv, started, {}, { DPoP: dpop }), {
      status: 400,
      error: 'invalid_grant',
    });
  });

  it('the user denies: the device hears access_denied', async () => {
    const started = await oidc.initiateDeviceAuthorization(tv, { scope: 'openid' });
    const polling = oidc.pollDeviceAuthorizationGrant(tv, started);
    const user = userAgent(gatehouse, (shown) =>
      shown.prompt === 'login' ? { login: { sub: 'alice' } } : { error: 'access_denied' },
    );
    const back = await user.enterUserCode(REALM, started.user_code);
    expect(back.searchParams.get('error')).toBe('access_denied');
    await expectOAuthError(polling, { status: 400, error: 'access_denied' });
  });
});
