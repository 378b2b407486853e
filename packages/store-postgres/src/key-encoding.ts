/**
 * PostgreSQL text holds neither NUL nor lone UTF-16 surrogates (the driver would turn every lone
 * surrogate into U+FFFD, making distinct ids collide), yet namespaces, ids and grant ids are
 * arbitrary strings, some from clients (an assertion's `jti`). Those few are stored escaped as
 * JSON behind a marker; every other string, and so every id Gatehouse makes, is stored as is.
 * Strings that start with the marker are escaped too, so the mapping stays one-to-one.
 */
const MARKER = '\u0001';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function encodeKey(key: string): string {
  const escaped = key.startsWith(MARKER) || key.includes('\u0000') || LONE_SURROGATE.test(key);
  return escaped ? MARKER + JSON.stringify(key) : key;
}

export function decodeKey(stored: string): string {
  return stored.startsWith(MARKER) ? (JSON.parse(stored.slice(MARKER.length)) as string) : stored;
}
