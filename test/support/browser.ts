import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { findChromium } from '../../scripts/localServices';

/**
 * Headless Chromium for the sign-in tests: the binary the global set-up found or installed
 * (Debian's `chromium`), driven through playwright-core. No sandbox: test machines and CI
 * containers run as root, where Chromium's sandbox refuses to start.
 */
export function chromiumPath(): string {
  const path = process.env.TEST_CHROMIUM_PATH || findChromium();
  if (!path) throw new Error('Chromium was not found; run the browser tests through jest, whose global set-up installs it or says what to install.');
  return path;
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
}

export async function closeBrowser(browser: Browser | undefined): Promise<void> {
  await browser?.close();
}

/**
 * One browser context for a file's tests in turn, emptied before each test as a new browser would
 * be (no cookies, no pages): making a context costs Chromium far more than emptying one. Tests that
 * need two browsers at once make the second themselves.
 */
export function contextPerFile(browser: () => Browser): () => BrowserContext {
  let context: BrowserContext | undefined;
  beforeEach(async () => {
    context ??= await browser().newContext();
    await context.clearCookies();
  });
  afterEach(async () => {
    for (const page of context?.pages() ?? []) await page.close();
  });
  return () => {
    if (!context) throw new Error('contextPerFile: the context exists only inside a test');
    return context;
  };
}
