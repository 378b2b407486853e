import { sha256Bytes } from '../crypto/digest.js';
import type { GatehouseResponse } from './types.js';

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

/**
 * Headers of every page Gatehouse renders itself: never framed (clickjacking), never cached,
 * no referrer leaking the URL's parameters, nothing loaded from anywhere. No `form-action`:
 * browsers apply it to the redirects that follow a form's POST, and those go to the client.
 */
const PAGE_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  pragma: 'no-cache',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
});

/** A CSP source expression that allows exactly this inline script: `'sha256-…'`. */
export function scriptHashSource(script: string): string {
  const digest = sha256Bytes(script);
  return `'sha256-${btoa(String.fromCharCode(...digest))}'`;
}

/** A minimal page; `title` is escaped here, `bodyHtml` must already be safe HTML. */
export function htmlPage(
  status: number,
  title: string,
  bodyHtml: string,
  headers: Record<string, string> = {},
  lang = 'en',
): GatehouseResponse {
  return {
    status,
    headers: { ...PAGE_HEADERS, ...headers },
    body: `<!doctype html><html lang="${escapeHtml(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title></head><body>${bodyHtml}</body></html>`,
  };
}
