import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe } from 'vitest';

/** Where `apt-get install chromium` (and so .ci/run) puts it. */
export const CHROMIUM = '/usr/bin/chromium';

const chromiumInstalled = (): boolean => existsSync(CHROMIUM);

/**
 * Whether a browser suite must be skipped: only on a developer machine without Chromium, with one
 * line saying so. Under CI (.ci/run installs it) a missing browser fails the launch instead.
 */
export function skipWithoutChromium(suite: string): boolean {
  const skip = !chromiumInstalled() && !process.env.CI;
  if (skip) {
    console.warn(
      `[${suite}] skipped: ${CHROMIUM} is missing (apt-get install chromium); .ci/run installs it`,
    );
  }
  return skip;
}

/** Headless Chromium, without a sandbox (containers) and without background traffic of its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * A suite with one headless Chromium for all its tests, skipped as `skipWithoutChromium` says.
 * `body` gets the browser through a function: it is launched only when the suite runs.
 */
export function describeInChromium(title: string, body: (browser: () => Browser) => void): void {
  describe.skipIf(skipWithoutChromium(title))(title, () => {
    let browser: Browser | undefined;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(() => browser?.close());
    body(() => {
      if (!browser) throw new Error('Chromium is not running');
      return browser;
    });
  });
}
