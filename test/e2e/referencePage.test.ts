import type { Browser, Page } from 'playwright-core';
import { closeBrowser, launchBrowser } from '../support/browser';
import { startTestApi, type TestApi } from '../support/testApi';

/**
 * The reference page at /docs, in a real browser. Redoc renders it from
 * /openapi.json with assets served by the service itself, under a CSP that allows only this
 * origin. Every operation of the document (webhook events included) must appear on the page,
 * and a screenshot must show a page, not a blank.
 */

let srv: TestApi;
let browser: Browser;
let page: Page;
const requested: string[] = [];
const violations: Array<{ directive: string; blocked: string }> = [];
const pageErrors: string[] = [];
const consoleErrors: string[] = [];

beforeAll(async () => {
  srv = await startTestApi();
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('request', (r) => requested.push(r.url()));
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  await page.exposeFunction('reportViolation', (directive: string, blocked: string) => violations.push({ directive, blocked }));
  // Browser-side code is a string: this project compiles without the DOM library.
  await page.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (e) => window.reportViolation(e.violatedDirective, e.blockedURI));",
  });
  const res = await page.goto(`${srv.url}/docs`);
  expect(res?.status()).toBe(200);
  await page.waitForSelector('[data-section-id^="operation/"]', { timeout: 60_000 });
});
afterAll(async () => {
  await closeBrowser(browser);
  await srv?.close();
});

test('the page is served under a CSP that allows only this origin (and a per-page nonce for styles)', async () => {
  const res = await fetch(`${srv.url}/docs`);
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).toMatch(/default-src 'none'/);
  expect(csp).toMatch(/script-src 'self'(;|$)/);
  expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
  const bundle = await fetch(`${srv.url}/docs/redoc.standalone.js`);
  expect(bundle.status).toBe(200);
  expect(bundle.headers.get('content-type')).toMatch(/javascript/);
  expect((await bundle.text()).length).toBeGreaterThan(500_000);
});

test('renders every operation and webhook event of the document', async () => {
  const document = (await (await fetch(`${srv.url}/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { operationId: string }>>;
    webhooks: Record<string, Record<string, { operationId: string }>>;
  };
  const operationIds = [...Object.values(document.paths), ...Object.values(document.webhooks)].flatMap((item) =>
    Object.values(item).map((op) => op.operationId),
  );
  expect(operationIds.length).toBeGreaterThan(40);
  const sections = await page.$$eval('[data-section-id]', (els) => els.map((e) => e.getAttribute('data-section-id') ?? ''));
  const missing = operationIds.filter((id) => !sections.some((s) => s.endsWith(`operation/${id}`)));
  expect(missing).toEqual([]);
  // The first-call guide is the document's introduction.
  const text = await page.textContent('body');
  for (const step of ['First call', 'Get a key', 'A first session', 'Register a webhook endpoint', 'Receive and verify', 'standardwebhooks'])
    expect(text).toContain(step);
});

test('loads nothing from another origin, breaks no CSP rule of its own, and logs or throws no error', () => {
  const origin = new URL(srv.url).origin;
  // The search worker is a blob of this origin (worker-src 'self' blob:); Redocly's logo is
  // served as an empty data: URL, so nothing is asked of their CDN.
  const foreign = requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith(`blob:${origin}/`) && !u.startsWith('data:'));
  expect(foreign).toEqual([]);
  expect(violations).toEqual([]);
  expect(consoleErrors).toEqual([]);
  expect(pageErrors).toEqual([]);
});

test('the side menu shows plain text: no markup from headings or summaries', async () => {
  const entries = await page.$$eval('.menu-content li', (els) => els.map((e) => (e.textContent ?? '').trim()));
  expect(entries.length).toBeGreaterThan(40);
  expect(entries.filter((t) => /<\/?[a-z][^>]*>|`/i.test(t))).toEqual([]);
  const menuHtml = await page.$eval('.menu-content', (e) => e.innerHTML);
  expect(menuHtml).not.toMatch(/&lt;\/?code&gt;/);
});

test('code blocks wrap inside their box at 1,280 px: none is wider than it shows', async () => {
  const clipped = (await page.evaluate(`(() => {
    const out = [];
    for (const pre of document.querySelectorAll('#reference pre')) {
      if (pre.clientWidth === 0) continue;
      const widest = Math.max(pre.scrollWidth, ...[...pre.querySelectorAll('*')].map((e) => e.scrollWidth));
      if (widest > pre.clientWidth + 1) out.push(pre.textContent.slice(0, 80));
    }
    return out;
  })()`)) as string[];
  const blocks = await page.$$eval('#reference pre', (els) => els.length);
  expect(blocks).toBeGreaterThan(10);
  expect(clipped).toEqual([]);
});

test('every /v1 operation shows its request samples: curl and the TypeScript client', async () => {
  const document = (await (await fetch(`${srv.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  const v1 = Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/v1/'))
    .flatMap(([, item]) => Object.keys(item)).length;
  const tabs = await page.$$eval('[role=tab]', (els) => els.map((e) => (e.textContent ?? '').trim()));
  expect(tabs.filter((t) => t === 'curl')).toHaveLength(v1);
  expect(tabs.filter((t) => t === 'TypeScript client')).toHaveLength(v1);
});

test('a screenshot is not blank', async () => {
  const png = await page.screenshot({ fullPage: false });
  // Decode the screenshot in a page of its own (no CSP there) and count its colours.
  const probe = await browser.newPage();
  const stats = (await probe.evaluate(`(async () => {
    const img = new Image();
    img.src = 'data:image/png;base64,${png.toString('base64')}';
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width;
    canvas.height = img.height;
    const g = canvas.getContext('2d');
    g.drawImage(img, 0, 0);
    const data = g.getImageData(0, 0, img.width, img.height).data;
    const colours = new Set();
    let nonWhite = 0;
    for (let i = 0; i < data.length; i += 4) {
      colours.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      if (data[i] < 240 || data[i + 1] < 240 || data[i + 2] < 240) nonWhite++;
    }
    return { width: img.width, colours: colours.size, nonWhiteShare: nonWhite / (data.length / 4) };
  })()`)) as { width: number; colours: number; nonWhiteShare: number };
  await probe.close();
  expect(stats.width).toBe(1280);
  expect(stats.colours).toBeGreaterThan(100);
  expect(stats.nonWhiteShare).toBeGreaterThan(0.1);
});
