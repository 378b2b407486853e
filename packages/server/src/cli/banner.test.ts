import { parseServerConfig } from '@gatehouse-oidc/server';
import { expect, it } from 'vitest';
import { validConfig, withChanges } from '../../../../test/server/support.js';
import { credentialLines, discoveryLines, startupWarnings } from './banner.js';

it('lists one discovery URL per realm, from base_url', () => {
  const second = withChanges(validConfig().realms[0] as object, { name: 'staff' });
  const config = parseServerConfig(
    withChanges(validConfig(), { base_url: 'https://id.example.com/', 'realms.1': second }),
  );
  expect(discoveryLines(config)).toEqual([
    'realm demo: https://id.example.com/oauth/demo/.well-known/openid-configuration',
    'realm staff: https://id.example.com/oauth/staff/.well-known/openid-configuration',
  ]);
});

it('prints each secret it knows and says when it knows none', () => {
  const native = {
    client_id: 'app',
    application_type: 'native',
    token_endpoint_auth_method: 'none',
    redirect_uris: ['com.example:/cb'],
  };
  const lines = credentialLines(
    parseServerConfig(withChanges(validConfig(), { 'realms.0.clients.3': native })),
  );
  expect(lines[0]).toMatch(/^WARNING: .*local development only\.$/);
  expect(lines).toContain('  client app  none  (no secret)');
  expect(lines).toContain('  user alice  password=alice-password');
  expect(lines).toContain('  user bob  (hashed password)');
});

const COOKIE_SECRET = 'cookie-secret-0123456789abcdef0123456789';

it('accepts a short admin_token only with allow_short_admin_token, and warns about it', () => {
  const short = parseServerConfig(
    withChanges(validConfig(), {
      admin_token: 'change-me',
      allow_short_admin_token: true,
      cookie_secret: COOKIE_SECRET,
    }),
  );
  expect(startupWarnings(short)).toEqual([
    expect.stringMatching(/^warning: admin_token is shorter than 32 characters/),
  ]);
  const sound = parseServerConfig(withChanges(validConfig(), { cookie_secret: COOKIE_SECRET }));
  expect(startupWarnings(sound)).toEqual([]);
});

it('warns when realms have users but no cookie_secret signs their forms', () => {
  expect(startupWarnings(parseServerConfig(validConfig()))).toEqual([
    expect.stringMatching(/^warning: no cookie_secret; /),
  ]);
  const machinesOnly = withChanges(validConfig(), { 'realms.0.users': [] });
  expect(startupWarnings(parseServerConfig(machinesOnly))).toEqual([]);
});
