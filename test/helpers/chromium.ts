/**
 * Debian's chromium, driven by puppeteer-core (its own browser download is unreachable here), as
 * the browser tests launch it. `.ci/run` installs the package; a machine without it fails the test
 * that asks, saying what to install, rather than skipping it.
 */
import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // No background networking on a closed network.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--lang=en-US',
    ],
  });
}
