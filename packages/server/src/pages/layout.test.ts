import { escapeHtml } from '@gatehouse-oidc/core';
import { describe, expect, it } from 'vitest';
import { html, SafeHtml } from './layout.js';

describe('html', () => {
  it('escapes every interpolation except SafeHtml, arrays included', () => {
    const item = (text: string) => html`<li>${text}</li>`;
    expect(
      html`<p title="${'"&\''}">${['<b>', item('<i>')]}${new SafeHtml('<br>')}</p>`.value,
    ).toBe('<p title="&quot;&amp;&#39;">&lt;b&gt;<li>&lt;i&gt;</li><br></p>');
    expect(escapeHtml('<a href="x">&\'')).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;');
  });
});
