import { createHash } from 'node:crypto';
import { escapeHtml } from '@gatehouse-oidc/core';
import type { Locale } from './i18n.js';

/** HTML that is already safe: built only by `html` below, which escapes every interpolation. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Interpolation = SafeHtml | string | number | readonly (SafeHtml | string)[];

/**
 * A template tag that escapes every interpolated value unless it is SafeHtml, so a page cannot
 * echo a client name, login hint or username unescaped by forgetting a call.
 */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return new SafeHtml(out);
}

function render(value: Interpolation): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:26rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem}label{display:block;margin-top:1rem}
input{display:block;width:100%;box-sizing:border-box;padding:.5rem;margin-top:.25rem;font-size:1rem}
button{margin-top:1.25rem;margin-right:.5rem;padding:.5rem 1.25rem;font-size:1rem}
.error{color:#a40000;font-weight:600}code{font-size:.85em;color:#555}`;

/** The only style the pages may apply: inline, and allowed by its hash rather than 'unsafe-inline'. */
const STYLE_SOURCE = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/**
 * Headers of every answer of the built-in pages: never framed (clickjacking), never cached,
 * no referrer carrying the URL onward, no script at all, forms posted only to this origin and
 * to `formTargets` (where the redirects that follow a post may lead).
 */
export function pageHeaders(formTargets: readonly string[] = []): Record<string, string> {
  const formAction = ["'self'", ...formTargets].join(' ');
  return {
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'content-security-policy': `default-src 'none'; style-src ${STYLE_SOURCE}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
}

/** A whole document in `locale`. */
export function layout(locale: Locale, title: string, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="referrer" content="no-referrer"><title>${title}</title><style>${new SafeHtml(STYLE)}</style></head>
<body>${body}</body></html>
`.value;
}
