/**
 * Writes the table of docs/errors.md from the error registry (src/errors/codes.ts), so the page
 * cannot drift from the code. Run `npx tsx packages/core/scripts/error-docs.ts` after changing
 * the registry; test/docs/errors.test.ts fails while the committed table is out of date.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ERROR_CODES, type ErrorCode, wireCode } from '../src/errors/codes.js';

export const ERROR_DOCS_PATH = fileURLToPath(new URL('../../../docs/errors.md', import.meta.url));
export const REGENERATE_ERROR_DOCS = 'npx tsx packages/core/scripts/error-docs.ts';

const START = '<!-- error-codes: generated from packages/core/src/errors/codes.ts -->';
const END = '<!-- error-codes: end -->';

const WHERE = { shown: 'shown at the provider', redirected: 'redirected', either: 'either' };

export function renderErrorTable(): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => {
    const { status, definedIn, authorization } = ERROR_CODES[code];
    const registered = wireCode(code, 'registered');
    return `| \`${code}\` | ${status} | ${definedIn} | ${authorization ? WHERE[authorization] : '—'} | ${
      registered === code ? 'the same' : `\`${registered}\``
    } |`;
  });
  return [
    START,
    '| Code | Status | Defined in | At the authorization endpoint | In the `registered` dialect |',
    '|---|---|---|---|---|',
    ...rows,
    END,
  ].join('\n');
}

/** The page with its table replaced by the one the registry gives. */
export function renderErrorDocs(page: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${ERROR_DOCS_PATH} lacks the table markers`);
  return `${page.slice(0, start)}${renderErrorTable()}${page.slice(end + END.length)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(ERROR_DOCS_PATH, renderErrorDocs(readFileSync(ERROR_DOCS_PATH, 'utf8')));
  console.log(`wrote ${ERROR_DOCS_PATH}`);
}
