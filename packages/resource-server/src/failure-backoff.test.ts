import { describe, expect, it } from 'vitest';
import { FailureBackoff } from './failure-backoff.js';

describe('FailureBackoff', () => {
  it('fails at once while the wait lasts, doubling it up to the maximum, until a success', async () => {
    let now = 0;
    const backoff = new FailureBackoff(() => now, 1000, 3000);
    let calls = 0;
    const failing = () => {
      calls++;
      return Promise.reject(new Error(`down ${calls}`));
    };
    await expect(backoff.run(failing)).rejects.toThrow('down 1');
    now = 999;
    await expect(backoff.run(failing)).rejects.toThrow('down 1');
    expect(calls).toBe(1);
    now = 1000;
    await expect(backoff.run(failing)).rejects.toThrow('down 2');
    now = 2999; // waits 2000 after the second failure
    await expect(backoff.run(failing)).rejects.toThrow('down 2');
    now = 3000;
    await expect(backoff.run(failing)).rejects.toThrow('down 3');
    now = 6000; // the third wait is capped at 3000
    await expect(backoff.run(() => Promise.resolve('up'))).resolves.toBe('up');
    await expect(backoff.run(failing)).rejects.toThrow('down 4');
    now = 7000; // a success forgot the earlier failures: back to the first wait
    await expect(backoff.run(failing)).rejects.toThrow('down 5');
  });
});
