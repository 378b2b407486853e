import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formPostPage } from './form-post.js';

const REDIRECT_URI = 'https://app.example.com/cb?tenant=a&b=1';

describe('formPostPage', () => {
  const page = formPostPage(REDIRECT_URI, { code: 'abc', state: '"><img src=x>' }, ['c=1']);
  const body = page.body ?? '';

  it('posts every parameter as a hidden field to the redirect URI, escaped', () => {
    expect(body).toContain(
      '<form method="post" action="https://app.example.com/cb?tenant=a&amp;b=1">' +
        '<input type="hidden" name="code" value="abc">' +
        '<input type="hidden" name="state" value="&quot;&gt;&lt;img src=x&gt;">',
    );
    expect(body).not.toContain('<img');
  });

  it('submits itself with the one script its CSP allows, and with a button without it', () => {
    const [, script] = /<script>(.*?)<\/script>/.exec(body) ?? [];
    const hash = createHash('sha256')
      .update(script ?? '')
      .digest('base64');
    expect(page.headers['content-security-policy']).toBe(
      `default-src 'none'; script-src 'sha256-${hash}'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'`,
    );
    expect(body).toContain('<button type="submit">Continue</button></form>');
  });

  it('is never framed, cached or sent on with a referrer, and carries the cookies', () => {
    expect(page).toMatchObject({
      status: 200,
      cookies: ['c=1'],
      headers: {
        'cache-control': 'no-store',
        'x-frame-options': 'DENY',
        'referrer-policy': 'no-referrer',
      },
    });
  });
});
