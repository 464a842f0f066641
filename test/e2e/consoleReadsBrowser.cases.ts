import type { Browser, BrowserContext, Page } from 'playwright-core';
import { recordAuditEvent } from '../../core/audit/auditLog';
import { EXPORTS_AT_ONCE, takeExportSlot, type ReadSlot } from '../../core/limits/consoleReadSlots';
import { StoreAdmission } from '../../core/limits/requestAdmission';
import { closeBrowser, launchBrowser } from '../support/browser';
import { checkPage, NOTHING_SCROLLS, sidewaysScrollingAcross, signInContext } from '../support/consoleBrowser';
import { eventually } from '../support/eventually';
import { createTenant, type TestTenant } from '../support/fixtures';
import { createUserWithCli, startSignInApi, uniqueEmail } from '../support/signInApi';
import type { TestApi } from '../support/testApi';
import { testLogger } from '../support/capturedLogs';

/**
 * The console's "Too many requests" page in a real browser: with the organization's export slots
 * taken (on another replica), "Download CSV" on the Audit log lands on that page, which says why
 * and when to come back, passes the axe check and fits a phone's and a desktop's width; once a
 * slot is free the same link downloads the CSV. CONSOLE_SHOTS=1 writes screenshots.
 */
const PASSWORD = 'correct horse battery staple 12';

let srv: TestApi;
let tenant: TestTenant;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let replica: StoreAdmission;

beforeAll(async () => {
  srv = await startSignInApi();
  replica = new StoreAdmission(srv.deps.stores.limits, Date.now, testLogger());
  tenant = await createTenant();
  for (let i = 0; i < 60; i++) {
    await recordAuditEvent(srv.deps.stores, {
      now: new Date(),
      orgId: tenant.orgId,
      actor: 'operator',
      action: 'budget.set',
      target: tenant.orgId,
      after: { budget: i * 1000 },
    });
  }
  browser = await launchBrowser();
  context = await browser.newContext({ acceptDownloads: true });
  page = await context.newPage();
  const email = uniqueEmail('reads-admin');
  const made = await createUserWithCli(srv, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions: ['audit.v1:read'], role: 'admin' });
  await signInContext(context, made.setupUrl, email, PASSWORD);
});
afterAll(async () => {
  await closeBrowser(browser);
  await replica?.close();
  await srv?.close();
});

test('"Download CSV" past the organization\'s exports at once is the "Too many requests" page; with a slot free it downloads', async () => {
  const running: ReadSlot[] = [];
  for (let i = 0; i < EXPORTS_AT_ONCE; i++) running.push(await takeExportSlot(replica, tenant.orgId));
  await page.goto(`${srv.url}/console/audit`);
  await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
  const answer = page.waitForResponse((r) => r.url().includes('/console/audit/download'));
  await page.getByRole('link', { name: 'Download CSV' }).click();
  expect((await answer).status()).toBe(429);
  await page.getByRole('heading', { level: 1, name: 'Too many requests' }).waitFor();
  await expect(page.getByRole('alert').textContent()).resolves.toContain(`already has ${EXPORTS_AT_ONCE} downloads running`);
  expect((await page.locator('main').innerText()).replace(/\s+/g, ' ')).toContain('Try again in 5 seconds.');
  expect(await checkPage(page, 'too-many-requests')).toEqual([]);
  expect(await sidewaysScrollingAcross(page)).toEqual(NOTHING_SCROLLS);
  if (process.env.CONSOLE_SHOTS) {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.screenshot({ path: '/tmp/console-shots/too-many-requests-1280.png', fullPage: true });
  }

  running.pop()!.release();
  await replica.leaseReleaser.drain();
  await page.goto(`${srv.url}/console/audit`);
  const csv = await eventually('the download to start', async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
    return download;
  });
  expect(csv.suggestedFilename()).toBe('audit-log.csv');
  running.pop()!.release();
  await replica.leaseReleaser.drain();
});

test('a filtered Audit log page that looked through its bounded stretch without a match says so, and links to older entries', async () => {
  // 60 entries from the set-up plus these: more than one page's stretch, none of them key.created.
  for (let i = 0; i < 480; i++) {
    await recordAuditEvent(srv.deps.stores, {
      now: new Date(),
      orgId: tenant.orgId,
      actor: 'operator',
      action: 'budget.set',
      target: tenant.orgId,
      after: { budget: i },
    });
  }
  await page.goto(`${srv.url}/console/audit?action=key.created`);
  await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
  const text = (await page.locator('main').innerText()).replace(/\s+/g, ' ');
  expect(text).toContain('No entry matches among the most recent ones looked at.');
  expect(text).toContain('A page looks through a bounded stretch of the log; older entries may match further back ("Next page").');
  await expect(page.getByRole('link', { name: /Next/ }).count()).resolves.toBeGreaterThan(0);
  expect(await checkPage(page, 'audit-bounded-stretch')).toEqual([]);
  expect(await sidewaysScrollingAcross(page)).toEqual(NOTHING_SCROLLS);
});
