import { StoreUnavailableError } from '@gatehouse-oidc/core';
import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { isUnavailable, replyCode, unavailable } from './errors.js';

describe('replyCode', () => {
  it('is the first word of a reply', () => {
    expect(
      replyCode(
        new ReplyError('WRONGTYPE Operation against a key holding the wrong kind of value'),
      ),
    ).toBe('WRONGTYPE');
    expect(
      replyCode(
        new ReplyError(
          "OOM command not allowed when used memory > 'maxmemory'. script: 3b45, on @user_script:1.",
        ),
      ),
    ).toBe('OOM');
  });

  it('is the wrapped code of a command a script ran on Redis before 7', () => {
    const reply = new ReplyError(
      "ERR Error running script (call to f_3b45): @user_script:1: @user_script: 1: -OOM command not allowed when used memory > 'maxmemory'.",
    );
    expect(replyCode(reply)).toBe('OOM');
    expect(
      replyCode(
        new ReplyError(
          'ERR Error running script (call to f_3b45): @user_script:1: user_script:1: attempt to call a nil value',
        ),
      ),
    ).toBe('ERR');
  });

  it('is undefined for anything but a reply', () => {
    expect(replyCode(new Error('LOADING'))).toBeUndefined();
    expect(replyCode('LOADING')).toBeUndefined();
  });
});

describe('isUnavailable', () => {
  it.each([
    'LOADING Redis is loading the dataset in memory',
    'BUSY Redis is busy running a script.',
    "OOM command not allowed when used memory > 'maxmemory'.",
    "READONLY You can't write against a read only replica.",
    'MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to no.',
    'CLUSTERDOWN The cluster is down',
    'TRYAGAIN Multiple keys request during rehashing of slot',
    'NOAUTH Authentication required.',
    'WRONGPASS invalid username-password pair or user is disabled.',
    'MISCONF Redis is configured to save RDB snapshots, but it is currently not able to persist on disk.',
    'NOREPLICAS Not enough good replicas to write.',
  ])('holds for the reply %s', (message) => {
    expect(isUnavailable(new ReplyError(message))).toBe(true);
  });

  it.each([
    'WRONGTYPE Operation against a key holding the wrong kind of value',
    "NOPERM User gatehouse has no permissions to run the 'eval' command",
    "ERR unknown command 'NOSUCHCMD', with args beginning with: ",
    'ERR Error running script (call to f_3b45): @user_script:1: user_script:1: attempt to call a nil value',
    'NOSCRIPT No matching script. Please use EVAL.',
  ])('does not hold for the reply %s', (message) => {
    expect(isUnavailable(new ReplyError(message))).toBe(false);
  });

  it('holds for the errors of a missing, closed or silent connection', () => {
    for (const message of [
      'Connection is closed.',
      'Command timed out',
      "Stream isn't writeable and enableOfflineQueue options is false",
      "Socket timeout. Expecting data, but didn't receive any in 1000ms.",
    ])
      expect(isUnavailable(new Error(message))).toBe(true);
    const reset = Object.assign(new Error('read ECONNRESET'), {
      code: 'ECONNRESET',
      syscall: 'read',
    });
    expect(isUnavailable(reset)).toBe(true);
    const aborted = new Error('Reached the max retries per request limit (which is 0).');
    Object.defineProperty(aborted, 'name', { value: 'MaxRetriesPerRequestError' });
    expect(isUnavailable(aborted)).toBe(true);
  });

  it('does not hold for bugs', () => {
    expect(isUnavailable(new TypeError("Cannot read properties of undefined (reading 'v')"))).toBe(
      false,
    );
    expect(isUnavailable(new SyntaxError('Unexpected token o in JSON at position 1'))).toBe(false);
    expect(isUnavailable('Connection is closed.')).toBe(false);
  });
});

describe('unavailable', () => {
  it('names the reply code, never the rest of the reply', () => {
    const reply = new ReplyError("OOM command not allowed when used memory > 'maxmemory'.");
    const error = unavailable(reply, 1000);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error.message).toBe('Redis is unavailable: it answered OOM');
    expect(error.cause).toBe(reply);
  });

  it('says how long Redis had to answer', () => {
    expect(unavailable(new Error('Command timed out'), 300).message).toBe(
      'Redis did not answer within 300 ms',
    );
    expect(unavailable(new Error('Connection is closed.'), 300).message).toBe(
      'Redis is unavailable',
    );
  });
});
