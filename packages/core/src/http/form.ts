import { invalidRequest } from '../errors/oauth-error.js';

/** Parameters of a form or query string: unique names, empty values treated as absent. */
export class Params {
  readonly #values: ReadonlyMap<string, string>;

  constructor(values: ReadonlyMap<string, string>) {
    this.#values = values;
  }

  /** The value, or undefined when absent or empty (RFC 6749 §3.1). */
  get(name: string): string | undefined {
    const value = this.#values.get(name);
    return value === '' ? undefined : value;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  names(): string[] {
    return [...this.#values.keys()].filter((name) => this.has(name));
  }
}

const MAX_PARAMETERS = 64;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses `application/x-www-form-urlencoded` strictly: malformed percent-encoding, invalid
 * UTF-8 and repeated parameters (RFC 6749 §3.2) are errors, never silently repaired.
 */
export function parseUrlEncoded(input: string): Params {
  const pairs: Array<[string, string]> = [];
  for (const segment of input.split('&')) {
    if (segment === '') continue;
    const separator = segment.indexOf('=');
    const rawName = separator === -1 ? segment : segment.slice(0, separator);
    const rawValue = separator === -1 ? '' : segment.slice(separator + 1);
    pairs.push([decodeFormComponent(rawName), decodeFormComponent(rawValue)]);
  }
  return paramsFromPairs(pairs);
}

export function paramsFromPairs(pairs: Iterable<readonly [string, string]>): Params {
  const values = new Map<string, string>();
  for (const [name, value] of pairs) {
    if (values.has(name)) throw invalidRequest(`parameter "${printable(name)}" is repeated`);
    if (values.size === MAX_PARAMETERS) throw invalidRequest('too many parameters');
    values.set(name, value);
  }
  return new Params(values);
}

export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch (cause) {
    throw invalidRequest('the request is not valid UTF-8', cause);
  }
}

/** One name or value of a form: `+` is a space, then percent-decoding as UTF-8. */
export function decodeFormComponent(raw: string): string {
  // Most names and many values need no decoding; skipping it is a measurable share of a request.
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch (cause) {
    throw invalidRequest('malformed percent-encoding', cause);
  }
}

/** A parameter name safe to echo in an error description. */
function printable(name: string): string {
  const cleaned = name.replace(/[^\x21-\x7e]/g, '?');
  return cleaned.length > 40 ? `${cleaned.slice(0, 40)}…` : cleaned;
}
