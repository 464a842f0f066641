import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import type { TestApi } from './testApi';
import { formField } from './formBrowser';
import { signIn, setPasswordFromLink, setPasswordWith } from './signInPages';

/**
 * What the console tests share: making a person through the operator CLI with a role, signing
 * them in through the pages, an accessibility check of the page shown, and screenshots at a
 * phone's and a desktop's width.
 */
export interface ConsolePerson {
  userId: string;
  email: string;
  password: string;
}

/** Sets the password from the setup link, then signs in on the sign-in page itself (no authorization request). */
export async function setUpAndSignIn(page: Page, srv: TestApi, setupUrl: string, email: string, password: string): Promise<void> {
  const status = await setPasswordFromLink(page, setupUrl, password);
  if (status >= 400) throw new Error(`setting the password answered ${status}`);
  await page.goto(`${srv.url}/api/oauth/signin`);
  await signIn(page, email, password);
}

/**
 * The same two forms as `setUpAndSignIn` (the setup link's, then the sign-in page's), posted with
 * the context's own request client: the context holds the session afterwards and no page is
 * rendered. For files whose subject is what a signed-in person sees; signing in through the pages
 * is the subject of tests of its own.
 */
export async function signInContext(context: BrowserContext, setupUrl: string, email: string, password: string): Promise<void> {
  const http = context.request;
  const set = await setPasswordWith(http, setupUrl, password);
  if (set !== 200) throw new Error(`setting the password answered ${set}`);
  const signInUrl = new URL('/api/oauth/signin', setupUrl).href;
  const signInPage = await (await http.get(signInUrl)).text();
  const signedIn = await http.post(signInUrl, { form: { csrf_token: formField(signInPage, 'csrf_token'), email, password }, maxRedirects: 0 });
  if (signedIn.status() !== 303) throw new Error(`signing in answered ${signedIn.status()}`);
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/** axe-core's source, handed to each page checked: its minified build, which a page takes in about two thirds of the time. */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on what `page` shows, checked in `page` itself:
 * the console's CSP forbids injected script tags, but a script evaluated through the browser's
 * debugging protocol is not subject to the page's CSP. Checking the live page costs a fraction
 * of loading its HTML again in another context, and it checks exactly what the person sees.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  // A string, evaluated in the page: this project's TypeScript has no DOM types.
  if ((await page.evaluate('typeof axe')) === 'undefined') await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)")) as AxeViolation[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The widths every console page is checked at: a phone, a laptop, a desktop. */
export const CONSOLE_WIDTHS = [375, 1280, 1440] as const;

/** Screenshots of what `page` shows at each of CONSOLE_WIDTHS into /tmp/console-shots/<name>-<width>.png. */
export async function screenshots(page: Page, name: string): Promise<void> {
  const before = page.viewportSize();
  for (const width of CONSOLE_WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({ path: `/tmp/console-shots/${name}-${width}.png`, fullPage: true });
  }
  if (before) await page.setViewportSize(before);
}

/**
 * What scrolls sideways on what `page` shows at `width` px wide: the page itself and every element
 * whose content is wider than its box (a table's frame that scrolls on its own included), each as
 * `tag.class scrollWidth>clientWidth`. Empty when everything fits.
 */
export async function sidewaysScrolling(page: Page, width: number): Promise<string[]> {
  const [[, found]] = await sidewaysScrollingAcross(page, [width]);
  return found;
}

/**
 * `sidewaysScrolling` at each of `widths` in turn, as `[width, what scrolls]`; the viewport is put
 * back once at the end, not between widths (each resize lays a busy page out again).
 */
export async function sidewaysScrollingAcross(page: Page, widths: readonly number[] = CONSOLE_WIDTHS): Promise<Array<[number, string[]]>> {
  const before = page.viewportSize();
  const out: Array<[number, string[]]> = [];
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    // A string, evaluated in the page: this project's TypeScript has no DOM types.
    const found = (await page.evaluate(`(() => {
    const out = [];
    const root = document.documentElement;
    if (root.scrollWidth > window.innerWidth) out.push('page ' + root.scrollWidth + '>' + window.innerWidth);
    for (const el of document.querySelectorAll('body *')) {
      const x = getComputedStyle(el).overflowX;
      if ((x === 'auto' || x === 'scroll') && el.scrollWidth > el.clientWidth) {
        out.push(el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ' ' + el.scrollWidth + '>' + el.clientWidth);
      }
    }
    return out;
  })()`)) as string[];
    out.push([width, found]);
  }
  if (before) await page.setViewportSize(before);
  return out;
}

/** What `sidewaysScrollingAcross` answers when everything fits at every console width. */
export const NOTHING_SCROLLS: Array<[number, string[]]> = CONSOLE_WIDTHS.map((width) => [width, []]);

/** Accessibility check and screenshots of the page shown: what every console page gets in the browser test. */
export async function checkPage(page: Page, name: string): Promise<AxeViolation[]> {
  if (process.env.CONSOLE_SHOTS) await screenshots(page, name);
  return seriousAxeViolations(page);
}
