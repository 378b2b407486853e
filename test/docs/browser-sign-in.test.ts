import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildServer, parseServerConfig, type Server } from '@gatehouse/server';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG, ROOT } from '../server/support.js';
import { freePort } from '../support/ports.js';

const DOC = join(ROOT, 'docs/browser-sign-in.md');

/** The shell script of "The whole flow from a shell", as a reader would paste it. */
function documentedScript(): string {
  const match = /## The whole flow from a shell[\s\S]*?```sh\n([\s\S]*?)```/.exec(
    readFileSync(DOC, 'utf8'),
  );
  if (!match?.[1]) throw new Error('docs/browser-sign-in.md lost its shell walkthrough');
  return match[1];
}

/**
 * The walkthrough in docs/browser-sign-in.md runs, unchanged, against the demo configuration:
 * curl through the login and consent pages to a code, then the token exchange.
 */
describe('docs/browser-sign-in.md', () => {
  let server: Server;
  let issuer: string;

  beforeAll(async () => {
    const port = await freePort();
    const demo = JSON.parse(readFileSync(EXAMPLE_CONFIG, 'utf8'));
    const config = parseServerConfig({ ...demo, base_url: `http://127.0.0.1:${port}`, port });
    server = buildServer(config, { report: () => {} });
    await server.app.listen({ port, host: '127.0.0.1' });
    issuer = `http://127.0.0.1:${port}/oauth/demo`;
  });

  afterAll(() => server.app.close());

  it('signs alice in and exchanges the code, as the walkthrough shows', async () => {
    const { stdout } = await promisify(execFile)(
      'bash',
      ['-euo', 'pipefail', '-c', documentedScript()],
      {
        env: { ...process.env, ISSUER: issuer },
      },
    );
    const [callback = '', tokenResponse = ''] = stdout.trim().split('\n');
    const params = new URL(callback).searchParams;
    expect(params.get('state')).toBe('af0ifjsldkj');
    expect(params.get('iss')).toBe(issuer);
    const tokens = JSON.parse(tokenResponse);
    expect(tokens).toMatchObject({ token_type: 'Bearer', scope: 'openid profile email' });
    expect(decodeJwt(tokens.id_token)).toMatchObject({ sub: 'alice', nonce: 'n-0S6_WzA2Mj' });
  }, 30_000);
});
