import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, SECRETS } from '../support/fixtures.js';
import {
  ADMIN_TOKEN,
  CliProcess,
  configDir,
  EXAMPLE_CONFIG,
  killAllCli,
  runCli,
  validConfig,
  withChanges,
} from './support.js';

const dir = configDir();
afterAll(() => {
  killAllCli();
  dir.remove();
});

const TOKEN_FORM = form({
  grant_type: 'client_credentials',
  client_id: 'service',
  client_secret: SECRETS.post,
});

describe('gatehouse check', () => {
  it('prints "ok" and exits 0 for the example config', async () => {
    expect(await runCli(['check', '--config', EXAMPLE_CONFIG])).toEqual({
      code: 0,
      stdout: 'ok\n',
      stderr: '',
    });
  });

  it('exits 2 and prints every problem with its JSON path', async () => {
    const file = dir.write(
      'invalid.json',
      withChanges(validConfig(), {
        port: 'x',
        'realms.0.clients.2.redirect_uris': ['https://app.example.com/cb', 'cb'],
        'realms.1': withChanges(validConfig().realms[0] as object, {
          name: 'staff',
          'clients.0.scope': 'admin',
        }),
      }),
    );
    const { code, stdout, stderr } = await runCli(['check', '--config', file]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr.split('\n')).toEqual([
      `${file}: invalid configuration`,
      'port: Invalid input: expected number, received string',
      'realms[0].clients[2].redirect_uris[1]: must be an absolute URL',
      'realms[1].clients[0].scope: names unknown scope "admin"',
      '',
    ]);
  });

  it('reports a code-flow client without redirect URIs and a web client redirecting over plain http', async () => {
    const file = dir.write(
      'redirects.json',
      withChanges(validConfig(), {
        'realms.0.clients.1.grant_types': ['authorization_code'],
        'realms.0.clients.2.redirect_uris': ['http://app.example.com/cb', 'http://127.0.0.1/cb'],
      }),
    );
    const { code, stderr } = await runCli(['check', '--config', file]);
    expect(code).toBe(2);
    expect(stderr.split('\n')).toEqual([
      `${file}: invalid configuration`,
      'realms[0].clients[1].redirect_uris: must list at least one URI for the authorization_code grant',
      'realms[0].clients[2].redirect_uris[0]: must be https for a web client (plain http only to localhost, 127.0.0.1 or [::1])',
      '',
    ]);
  });

  it('reports a CIBA ping client whose notification endpoint is not https', async () => {
    const file = dir.write(
      'ciba-ping.json',
      withChanges(validConfig(), {
        'realms.0.ciba': {
          authenticator: { webhook_url: 'https://authenticator.example.com/push' },
        },
        'realms.0.clients.2.grant_types': [
          'authorization_code',
          'urn:openid:params:grant-type:ciba',
        ],
        'realms.0.clients.2.backchannel_token_delivery_mode': 'ping',
        'realms.0.clients.2.backchannel_client_notification_endpoint':
          'http://app.example.com/ping',
      }),
    );
    const { code, stderr } = await runCli(['check', '--config', file]);
    expect(code).toBe(2);
    expect(stderr.split('\n')).toEqual([
      `${file}: invalid configuration`,
      'realms[0].clients[2].backchannel_client_notification_endpoint: must be https',
      '',
    ]);
  });

  it('prints the problems of every stage at once: shape, cross-field rules and server checks', async () => {
    const file = dir.write(
      'stages.json',
      withChanges(validConfig(), {
        admin_token: 'change-me',
        store_options: { table_prefix: 'gh_' },
        'realms.0.clients.0.scope': 'api:write',
        'realms.0.clients.2.redirect_uris': ['javascript:alert(1)', 'http://app.example.com/cb'],
      }),
    );
    const { code, stderr } = await runCli(['check', '--config', file]);
    expect(code).toBe(2);
    expect(stderr.split('\n')).toEqual([
      `${file}: invalid configuration`,
      'realms[0].clients[2].redirect_uris[0]: must not be a javascript:, data:, vbscript:, file: or blob: URL',
      'realms[0].clients[0].scope: names unknown scope "api:write"',
      'realms[0].clients[2].redirect_uris[1]: must be https for a web client (plain http only to localhost, 127.0.0.1 or [::1])',
      'admin_token: must be at least 32 characters (set allow_short_admin_token for local development)',
      'store_options.table_prefix: applies to postgres:// stores only, not to the memory store',
      '',
    ]);
  });

  it('refuses a fapi2 realm whose settings and clients break the profile, naming each path', async () => {
    const file = dir.write(
      'fapi2.json',
      withChanges(validConfig(), {
        'realms.0.profile': 'fapi2',
        'realms.0.signing_alg': 'RS256',
        'realms.0.authorization_code_ttl': 120,
        'realms.0.clients.2.response_types': ['code', 'code id_token'],
      }),
    );
    const { code, stderr } = await runCli(['check', '--config', file]);
    expect(code).toBe(2);
    const onlyPrivateKeyJwt = (method: string) =>
      `${method} is not allowed in a fapi2 realm: only private_key_jwt (FAPI 2.0 SP §5.3.2.1-6)`;
    const keysRequired = 'or jwks_uri is required in a fapi2 realm (private_key_jwt)';
    expect(stderr.split('\n')).toEqual([
      `${file}: invalid configuration`,
      'realms[0].signing_alg: RS256 is not allowed in a fapi2 realm: only ES256, PS256, EdDSA (FAPI 2.0 SP §5.4)',
      'realms[0].authorization_code_ttl: must be at most 60 seconds in a fapi2 realm (FAPI 2.0 SP §5.3.2.1-11)',
      `realms[0].clients[0].token_endpoint_auth_method: ${onlyPrivateKeyJwt('client_secret_post')}`,
      `realms[0].clients[0].jwks: ${keysRequired}`,
      `realms[0].clients[1].token_endpoint_auth_method: ${onlyPrivateKeyJwt('client_secret_basic')}`,
      `realms[0].clients[1].jwks: ${keysRequired}`,
      `realms[0].clients[2].token_endpoint_auth_method: ${onlyPrivateKeyJwt('client_secret_basic')}`,
      `realms[0].clients[2].jwks: ${keysRequired}`,
      'realms[0].clients[2].response_types[1]: "code id_token" is not allowed in a fapi2 realm: only "code" (FAPI 2.0 SP §5.3.2.2-1)',
      '',
    ]);
  });

  it('exits 2 with a clear message for a missing file', async () => {
    const missing = dir.path('missing.json');
    expect(await runCli(['check', '--config', missing])).toEqual({
      code: 2,
      stdout: '',
      stderr: `cannot read config file "${missing}" (ENOENT)\n`,
    });
  });

  it('exits 2 with the usage for an unknown command or flag', async () => {
    for (const argv of [['start'], ['check', '--config', EXAMPLE_CONFIG, '--port', '1']]) {
      const { code, stderr } = await runCli(argv);
      expect(code).toBe(2);
      expect(stderr).toContain(
        'usage:\n  gatehouse serve --config <file.json> [--port <n>] [--host <h>]\n',
      );
    }
  });
});

describe('gatehouse serve', () => {
  it('exits 2 on an invalid config before listening', async () => {
    const file = dir.write('bad-port.json', withChanges(validConfig(), { port: 'x' }));
    const { code, stdout, stderr } = await runCli(['serve', '--config', file, '--port', '0']);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('port: Invalid input: expected number, received string');
  });

  describe('with the example config (what `pnpm start` runs)', () => {
    let cli: CliProcess;
    let origin: string;
    beforeAll(async () => {
      cli = new CliProcess(['serve', '--config', EXAMPLE_CONFIG, '--port', '0']);
      origin = await cli.origin();
      await cli.waitFor(/user bob/);
    });
    afterAll(() => cli.kill());

    it('prints the discovery URL of each realm and, after a warning, the demo credentials', () => {
      const lines = cli.stdout.split('\n');
      expect(lines[1]).toBe(
        'realm demo: http://127.0.0.1:3000/oauth/demo/.well-known/openid-configuration',
      );
      expect(lines[2]).toMatch(/^WARNING: .*local development only/);
      expect(lines).toContain(
        '  client demo-service  client_secret_post  client_secret=demo-service-secret-change-me',
      );
      expect(lines).toContain(
        '  client demo-basic  client_secret_basic  client_secret=demo-basic-secret-change-me',
      );
      expect(lines).toContain('  user alice  password=alice-demo-password');
    });

    it('serves discovery, a client_credentials token and /healthz', async () => {
      const discovery = await fetch(`${origin}/oauth/demo/.well-known/openid-configuration`);
      expect(discovery.status).toBe(200);
      expect(await discovery.json()).toMatchObject({ issuer: 'http://127.0.0.1:3000/oauth/demo' });

      const token = await fetch(`${origin}/oauth/demo/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${btoa('demo-basic:demo-basic-secret-change-me')}`,
        },
        body: form({ grant_type: 'client_credentials', scope: 'api:read' }),
      });
      expect(token.status).toBe(200);
      expect(await token.json()).toMatchObject({ token_type: 'Bearer', expires_in: 600 });

      const health = await fetch(`${origin}/healthz`);
      expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    });
  });

  describe('with an admin token and default settings', () => {
    let cli: CliProcess;
    let origin: string;
    beforeAll(async () => {
      cli = new CliProcess([
        'serve',
        '--config',
        dir.write('admin.json', validConfig()),
        '--port',
        '0',
      ]);
      origin = await cli.origin();
    });
    afterAll(() => cli.kill());

    const post = (path: string, headers: Record<string, string> = {}, body?: string) =>
      fetch(`${origin}${path}`, { method: 'POST', headers, ...(body !== undefined && { body }) });

    it('prints no secret by default', async () => {
      const response = await post(
        '/oauth/demo/token',
        { 'content-type': 'application/x-www-form-urlencoded' },
        TOKEN_FORM,
      );
      expect(response.status).toBe(200);
      const output = cli.stdout + cli.stderr;
      for (const secret of [SECRETS.post, SECRETS.api, ADMIN_TOKEN, 'alice-password'])
        expect(output).not.toContain(secret);
    });

    it('rotates keys through the admin API: 401 without the token, 204 with it', async () => {
      const rotate = '/admin/realms/demo/keys/rotate';
      const refused = await post(rotate);
      expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, 'Bearer']);
      expect((await post(rotate, { authorization: `Bearer ${ADMIN_TOKEN}` })).status).toBe(204);
      const jwks = (await (await fetch(`${origin}/oauth/demo/jwks`)).json()) as {
        keys: { alg: string }[];
      };
      expect(jwks.keys.filter((key) => key.alg === 'ES256')).toHaveLength(2);
    });

    it('on SIGTERM stops accepting, finishes the request in flight and exits 0', async () => {
      const url = new URL(`${origin}/oauth/demo/token`);
      const inFlight = request(url, {
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': TOKEN_FORM.length,
        },
      });
      const answered = new Promise<{ status: number | undefined; body: string }>(
        (resolve, reject) => {
          inFlight.on('error', reject).on('response', (response) => {
            let body = '';
            response.setEncoding('utf8').on('data', (chunk: string) => {
              body += chunk;
            });
            response.on('end', () => resolve({ status: response.statusCode, body }));
          });
        },
      );
      // Half the body now: the server has the request and waits for the rest.
      inFlight.write(TOKEN_FORM.slice(0, 20));
      await new Promise((resolve) => setTimeout(resolve, 200));

      cli.child.kill('SIGTERM');
      await cli.waitFor(/SIGTERM received/, 'stderr');
      // Refused once the listener is closed; 503 if it arrives in the instant before.
      const late = await fetch(`${origin}/healthz`).then(
        (response) => response.status,
        () => 'refused',
      );
      expect(['refused', 503]).toContain(late);
      expect(cli.child.exitCode).toBeNull();

      inFlight.end(TOKEN_FORM.slice(20));
      const { status, body } = await answered;
      expect(status).toBe(200);
      expect(JSON.parse(body)).toHaveProperty('access_token');
      expect(await cli.exited).toBe(0);
    });
  });
});
