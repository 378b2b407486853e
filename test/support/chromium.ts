import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Where `apt-get install chromium` (and so .ci/run) puts it. */
export const CHROMIUM = '/usr/bin/chromium';

export const chromiumInstalled = (): boolean => existsSync(CHROMIUM);

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
