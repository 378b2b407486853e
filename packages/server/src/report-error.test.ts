import { StoreUnavailableError } from '@gatehouse-oidc/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { describeError, reportedPath, stderrReporter } from './report-error.js';
import { redactStoreSecrets } from './store.js';

const STORE = 'postgres://gatehouse:pa55-w0rd@db.internal:5432/idp';

afterEach(() => {
  vi.restoreAllMocks();
});

/** What `report` writes to stderr for `error`. */
function written(
  report: ReturnType<typeof stderrReporter>,
  error: unknown,
  request?: { method: string; path: string },
) {
  const write = vi.spyOn(process.stderr, 'write').mockReturnValue(true);
  report(error, request);
  return write.mock.calls.map(([chunk]) => String(chunk)).join('');
}

describe('stderrReporter', () => {
  it('writes the stack, then the message of each cause', () => {
    const refused = new AggregateError(
      [
        Object.assign(new Error('connect ECONNREFUSED ::1:5432'), { code: 'ECONNREFUSED' }),
        Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      ],
      '',
    );
    Object.assign(refused, { code: 'ECONNREFUSED' });
    const error = new StoreUnavailableError('PostgreSQL store unavailable', { cause: refused });
    const text = written(stderrReporter(), error, { method: 'POST', path: '/oauth/demo/token' });
    const lines = text.split('\n');
    expect(lines[0]).toBe(
      '[gatehouse] POST /oauth/demo/token: StoreUnavailableError: PostgreSQL store unavailable',
    );
    expect(lines[1]).toMatch(/^ {4}at /);
    expect(lines.at(-2)).toBe(
      '  caused by: AggregateError [ECONNREFUSED]: connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432',
    );
    expect(text.endsWith('\n')).toBe(true);
  });

  it('follows a chain of causes, and stops at a cycle', () => {
    const inner = new Error('socket hang up');
    const middle = new TypeError('fetch failed', { cause: inner });
    const outer = new Error('push failed', { cause: middle });
    inner.cause = outer;
    const text = describeError(outer);
    expect(text.split('\n').filter((line) => line.startsWith('  caused by'))).toEqual([
      '  caused by: TypeError: fetch failed',
      '  caused by: Error: socket hang up',
    ]);
  });

  it('stops after a bounded number of causes', () => {
    let error: unknown = 'the root';
    for (let depth = 0; depth < 50; depth++) error = new Error(`level ${depth}`, { cause: error });
    const causes = describeError(error)
      .split('\n')
      .filter((line) => line.startsWith('  caused by'));
    expect(causes).toHaveLength(8);
  });

  it('writes what is not an Error as text, and reports background work as such', () => {
    expect(written(stderrReporter(), 'plain failure')).toBe(
      '[gatehouse] background: plain failure\n',
    );
  });

  it("redacts the whole entry: the store URL's password never shows, even in a cause", () => {
    const cause = new Error(`could not connect to ${STORE}; password pa55-w0rd refused`);
    const error = new Error('store call failed', { cause });
    const text = written(
      stderrReporter((entry) => redactStoreSecrets(entry, STORE)),
      error,
      { method: 'GET', path: '/healthz' },
    );
    expect(text).not.toContain('pa55-w0rd');
    expect(text).toContain('  caused by: Error: could not connect to ***; password *** refused');
  });
});

describe('reportedPath', () => {
  it('leaves out the query and all but the start of an auth_req_id', () => {
    expect(reportedPath('/admin/realms/shop?note=secret')).toBe('/admin/realms/shop');
    expect(reportedPath('/admin/realms/demo/ciba/abcdefghijklmnop/approve?x=1')).toBe(
      '/admin/realms/demo/ciba/abcdef…/approve',
    );
  });
});
