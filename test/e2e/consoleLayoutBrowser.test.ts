import type { Browser, Page } from 'playwright-core';
import { recordAuditEvent } from '../../core/audit/auditLog';
import { setBudget } from '../../core/credits/credits';
import { createApiKey } from '../../core/keys/apiKeys';
import { ALL_PERMISSIONS } from '../../core/keys/permissions';
import { blockOperation, setCap } from '../../core/limits/limitSettings';
import { renameOrganization } from '../../core/tenancy/organizationName';
import { closeBrowser, launchBrowser } from '../support/browser';
import { CONSOLE_WIDTHS, checkPage, setUpAndSignIn, sidewaysScrolling } from '../support/consoleBrowser';
import { createTenant, type TestTenant } from '../support/fixtures';
import { createUserWithCli, startSignInApi, uniqueEmail } from '../support/signInApi';
import type { TestApi } from '../support/testApi';

/**
 * Nothing of the console is off-screen (issue 41 item 2): with an organization as a busy one looks
 * (a long name, 200 keys with long names and all nine permissions, people with long addresses,
 * caps and blocks, audit entries), no page scrolls sideways at 375, 1,280 or 1,440 px, nor does any
 * part of it (a table's frame included): wide tables stack into labelled rows on a phone, and at a
 * desktop's width every column, the actions included, is inside the viewport. CONSOLE_SHOTS=1
 * writes each page's screenshots.
 */
const PASSWORD = 'correct horse battery staple 12';
const LONG = 'Recruiting Operations EMEA — Northwind Talent Partners International';

let srv: TestApi;
let tenant: TestTenant;
let browser: Browser;
let page: Page;
let adminEmail = '';

beforeAll(async () => {
  srv = await startSignInApi();
  tenant = await createTenant({ credits: 5000 });
  await renameOrganization(tenant.orgId, LONG);
  for (let i = 0; i < 200; i++) {
    await createApiKey({
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      name: `${LONG} backend key number ${i}`,
      scopes: [...ALL_PERMISSIONS],
      audience: 'developer-api',
      createdBy: 'operator',
    });
  }
  const settings = { readCacheMs: 0 };
  await setCap(settings, {
    orgId: tenant.orgId,
    operation: 'candidates.search',
    scope: { type: 'key', id: tenant.keyId },
    requestsPerMinute: 30,
    actor: 'customer',
  });
  await blockOperation(settings, {
    orgId: tenant.orgId,
    operation: 'person_matches.create',
    scope: { type: 'organization', id: tenant.orgId },
    actor: 'customer',
  });
  await setBudget({ orgId: tenant.orgId, familyId: tenant.familyId, amount: 1200 });
  adminEmail = uniqueEmail('head-of-recruiting-operations');
  const made = await createUserWithCli(srv, {
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    email: adminEmail,
    permissions: [...ALL_PERMISSIONS],
    role: 'admin',
  });
  for (let i = 0; i < 60; i++) {
    await recordAuditEvent(srv.deps.stores, {
      orgId: tenant.orgId,
      actor: `user:${made.userId}`,
      action: 'key.created',
      target: tenant.keyId,
      after: { name: `${LONG} backend key number ${i}`, scopes: [...ALL_PERMISSIONS], status: 'active' },
    });
  }
  browser = await launchBrowser();
  page = await (await browser.newContext()).newPage();
  await setUpAndSignIn(page, srv, made.setupUrl, adminEmail, PASSWORD);
});
afterAll(async () => {
  await closeBrowser(browser);
  await srv?.close();
});

const PAGES: Array<[string, string]> = [
  ['/console/overview', 'Overview'],
  ['/console/keys', 'API keys'],
  ['/console/keys/new', 'Create an API key'],
  ['/console/limits', 'Limits'],
  ['/console/budgets', 'Budgets'],
  ['/console/usage', 'Usage'],
  ['/console/webhooks', 'Webhooks'],
  ['/console/webhooks/deliveries', 'Webhook deliveries'],
  ['/console/jobs', 'Jobs'],
  ['/console/team', 'Team'],
  ['/console/team/invite', 'Invite a person'],
  ['/console/audit', 'Audit log'],
  ['/console/settings', 'Settings'],
  ['/api/oauth/connections', 'Connected applications'],
];

test.each(PAGES)('%s fits at 375, 1,280 and 1,440 px with a busy organization', async (path, heading) => {
  await page.goto(`${srv.url}${path}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  expect(await page.locator('header .brand').innerText()).toContain(LONG);
  const name = path.split('/').filter(Boolean).slice(1).join('-') || 'root';
  expect(await checkPage(page, `busy-${name}`)).toEqual([]);
  for (const width of CONSOLE_WIDTHS) expect([width, await sidewaysScrolling(page, width)]).toEqual([width, []]);
});

test('at 1,280 px the keys table shows every column and the actions of the first row', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${srv.url}/console/keys`);
  const row = page.getByRole('row').nth(1);
  const revoke = row.getByRole('link', { name: /^Revoke / });
  const box = await revoke.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.x + box!.width).toBeLessThanOrEqual(1280);
});
