import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { findChromium } from '../../scripts/localServices';

/**
 * Headless Chromium for the browser tests: the binary the global set-up found or installed
 * (Debian's `chromium-headless-shell`, else its `chromium`), driven through playwright-core. No sandbox: test machines and CI
 * containers run as root, where Chromium's sandbox refuses to start.
 */
export function chromiumPath(): string {
  const path = process.env.TEST_CHROMIUM_PATH || findChromium();
  if (!path) throw new Error('Chromium was not found; run the browser tests through jest, whose global set-up installs it or says what to install.');
  return path;
}

/**
 * The test file's Chromium. An area file runs several describe blocks, each launching a browser
 * in its set-up, and a launch costs Chromium about a second of CPU: they share one, each in
 * contexts of its own. This module is loaded once per test file (jest's registry per file), and
 * the browser closes when the file has run (test/support/logBufferEnvironment.ts runs what
 * `__atFileEnd` holds).
 */
let fileBrowser: Promise<Browser> | undefined;

export async function launchBrowser(): Promise<Browser> {
  if (!fileBrowser) {
    const launching = chromium.launch({ executablePath: chromiumPath(), headless: true, args: ['--no-sandbox'] });
    fileBrowser = launching;
    launching.catch(() => (fileBrowser = undefined));
    atFileEnd(async () => (await launching.catch(() => undefined))?.close());
  }
  const browser = await fileBrowser;
  if (browser.isConnected()) return browser;
  fileBrowser = undefined;
  return launchBrowser();
}

/** Closes the contexts a describe block made in the file's browser; the browser itself closes at the file's end. */
export async function closeBrowser(browser: Browser | undefined): Promise<void> {
  for (const context of browser?.contexts() ?? []) await context.close();
}

/** Runs `close` once the test file has run, after its last afterAll. */
function atFileEnd(close: () => Promise<void>): void {
  const scope = globalThis as { __atFileEnd?: Array<() => Promise<void>> };
  (scope.__atFileEnd ??= []).push(close);
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
