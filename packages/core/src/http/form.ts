import { OAuthError } from '../errors/oauth-error.js';

const NONE: ReadonlySet<string> = new Set();

/** Parameters of a form or query string: unique names, empty values treated as absent. */
export class Params {
  readonly #values: ReadonlyMap<string, string>;
  /** Names sent more than once, when the parser was told to keep their first value (see ParseOptions). */
  readonly repeated: ReadonlySet<string>;

  constructor(values: ReadonlyMap<string, string>, repeated: ReadonlySet<string> = NONE) {
    this.#values = values;
    this.repeated = repeated;
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

export interface ParseOptions {
  /**
   * Keep the first value of a repeated parameter and list its name in `Params.repeated` instead
   * of failing: for the authorization endpoint, which may still redirect the error to a trusted
   * client (its client_id and redirect_uri sent once).
   */
  recordRepeats?: boolean;
}

/**
 * Parses `application/x-www-form-urlencoded` strictly: malformed percent-encoding, invalid
 * UTF-8 and repeated parameters (RFC 6749 §3.2) are errors, never silently repaired.
 */
export function parseUrlEncoded(input: string, options: ParseOptions = {}): Params {
  const pairs: Array<[string, string]> = [];
  for (const segment of input.split('&')) {
    if (segment === '') continue;
    const separator = segment.indexOf('=');
    const rawName = separator === -1 ? segment : segment.slice(0, separator);
    const rawValue = separator === -1 ? '' : segment.slice(separator + 1);
    pairs.push([decodeFormComponent(rawName), decodeFormComponent(rawValue)]);
  }
  return paramsFromPairs(pairs, options);
}

export function paramsFromPairs(
  pairs: Iterable<readonly [string, string]>,
  options: ParseOptions = {},
): Params {
  const values = new Map<string, string>();
  let repeated: Set<string> | undefined;
  for (const [name, value] of pairs) {
    if (values.has(name)) {
      if (!options.recordRepeats)
        throw new OAuthError('invalid_request', 'a parameter is repeated');
      repeated ??= new Set();
      repeated.add(name);
      continue;
    }
    if (values.size === MAX_PARAMETERS)
      throw new OAuthError('invalid_request', 'too many parameters');
    values.set(name, value);
  }
  return new Params(values, repeated);
}

export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch (cause) {
    throw new OAuthError('invalid_request', 'the request is not valid UTF-8', { cause });
  }
}

/** One name or value of a form: `+` is a space, then percent-decoding as UTF-8. */
export function decodeFormComponent(raw: string): string {
  // Most names and many values need no decoding; skipping it is a measurable share of a request.
  if (!raw.includes('%') && !raw.includes('+')) return raw;
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch (cause) {
    throw new OAuthError('invalid_request', 'malformed percent-encoding', { cause });
  }
}
