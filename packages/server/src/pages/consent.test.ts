import { describe, expect, it } from 'vitest';
import { consentPage } from './consent.js';
import { html } from './layout.js';

const view = {
  client: 'Agent <CLI>',
  scopes: ['openid'],
  csrfField: html`<input type="hidden" name="csrf_token" value="t">`,
};

describe('consent page of a client known by its metadata document', () => {
  it.each([
    ['en', 'Your answer goes to agent.example.com.'],
    ['fr', 'Votre réponse est envoyée à agent.example.com.'],
  ] as const)('names the host its answer goes to (%s)', (locale, sentence) => {
    const page = consentPage({
      ...view,
      locale,
      redirect: { host: 'agent.example.com', loopback: false },
    });
    expect(page).toContain(sentence);
    expect(page).not.toContain('id="loopback"');
    expect(page).toContain('Agent &lt;CLI&gt;');
  });

  it.each([
    ['en', 'This application runs on your own computer (localhost)'],
    ['fr', 'Cette application tourne sur votre propre ordinateur (localhost)'],
  ] as const)('says plainly when that host is this computer (%s)', (locale, sentence) => {
    const page = consentPage({ ...view, locale, redirect: { host: '127.0.0.1', loopback: true } });
    expect(page).toContain('127.0.0.1');
    expect(page).toMatch(
      new RegExp(`<p class="error" id="loopback">${sentence.replace(/[()]/g, '\\$&')}`),
    );
  });

  it('says neither for a configured client', () => {
    const page = consentPage({ ...view, locale: 'en' });
    expect(page).not.toContain('id="redirect-host"');
    expect(page).not.toContain('id="loopback"');
  });
});
