import { describe, expect, it } from 'vitest';
import { deviceCodePage, deviceOutcomePage } from './device.js';
import { LOCALES } from './i18n.js';
import { html } from './layout.js';

const csrfField = html`<input type="hidden" name="csrf_token" value="t">`;

describe('device pages', () => {
  it.each(LOCALES)('have one form posting user_code with the CSRF field (%s)', (locale) => {
    const page = deviceCodePage({ locale, csrfField });
    expect(page.match(/<form method="post">/g)).toHaveLength(1);
    expect(page).toContain('name="user_code"');
    expect(page).toContain('name="csrf_token"');
    expect(page).toContain(`<html lang="${locale}">`);
  });

  it('fill in the code from the URL, escaped', () => {
    const page = deviceCodePage({ locale: 'en', csrfField, userCode: '"><script>x</script>' });
    expect(page).toContain('value="&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(page).not.toContain('<script>');
  });

  it.each(LOCALES)('say whether the device may continue (%s)', (locale) => {
    expect(deviceOutcomePage(locale, 'approved')).toContain('id="device-approved"');
    expect(deviceOutcomePage(locale, 'denied')).toContain('id="device-denied"');
  });
});
