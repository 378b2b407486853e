import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../server/support.js';
import { fencedBlocks } from './markdown.js';
import { documentedRun, runSnippet } from './typescript-snippet.js';

const DOC = readFileSync(join(ROOT, 'docs/device-flow.md'), 'utf8');
const scripts = fencedBlocks(DOC).filter((block) => block.lang === 'ts');

/** Drives the page's submitUserCode: two wrong codes, the limit, then (unblocked) the right one. */
const VERIFICATION_PAGE_DRIVER = `
import { createProvider } from '@gatehouse-oidc/core';
const provider = createProvider({
  baseUrl: 'http://127.0.0.1:3000',
  realms: [{ name: 'demo', scopes: ['openid'], clients: [{
    client_id: 'tv', token_endpoint_auth_method: 'none',
    grant_types: ['urn:ietf:params:oauth:grant-type:device_code'], scope: 'openid',
  }] }],
});
const failures = new Map<string, number>();
const limit = {
  blocked: (address: string) => (failures.get(address) ?? 0) >= 2,
  failed: (address: string) => void failures.set(address, (failures.get(address) ?? 0) + 1),
};
const device = JSON.parse((await provider.handle({
  method: 'POST', path: '/oauth/demo/device/auth', query: '',
  headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'client_id=tv&scope=openid',
})).body ?? '{}');
const form = (typed: string, address = '192.0.2.1') =>
  submitUserCode(provider, limit, { realm: 'demo', typed, cookie: undefined, address });
for (const typed of ['BCDF-GHJK', 'nonsense', device.user_code]) console.log((await form(typed)).status);
const right = await form(device.user_code.replace('-', ' ').toLowerCase(), '192.0.2.2');
console.log(right.status, 'location' in right && right.location.includes('/interaction/'));
`;

describe('docs/device-flow.md', () => {
  it('runs the complete example as saved from the page, and prints what it says', async () => {
    const { script, output } = documentedRun('device-flow.md', 'A complete run in one file');
    expect(await runSnippet('device-demo.mts', script)).toBe(output);
  }, 30_000);

  it("runs the verification page's submitUserCode: wrong codes count, the limit holds", async () => {
    const page = scripts.find((block) => block.body.includes('submitUserCode'))?.body ?? '';
    const output = await runSnippet('verify.mts', page + VERIFICATION_PAGE_DRIVER);
    expect(output).toBe('400\n400\n429\n303 true\n');
  }, 30_000);

  it('shows a client the schema accepts', async () => {
    const { clientSchema } = await import('@gatehouse-oidc/core');
    const [client] = fencedBlocks(DOC).filter((block) => block.lang === 'json');
    expect(clientSchema.safeParse(JSON.parse(client?.body ?? '{}')).success).toBe(true);
  });
});
