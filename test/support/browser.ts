import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Where the browser tests leave their screenshots. */
const ARTIFACTS_DIR = fileURLToPath(new URL('../../test-artifacts/', import.meta.url));

/** Debian's chromium (installed by .ci/run); without the background-networking flags it dials out. */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Headless Chromium, driven by playwright-core (no Playwright browser download). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/**
 * A full-page screenshot of what a test rendered, in test-artifacts/, for a person to look at: with
 * TEST_SCREENSHOTS=1 only, as the tests check the page without them and each took seconds of CPU (the API
 * reference opened whole is a very tall page).
 */
export async function saveScreenshot(page: Page, file: string): Promise<void> {
  if (!process.env.TEST_SCREENSHOTS) return;
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS_DIR}${file}`, fullPage: true });
}
