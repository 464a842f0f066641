import type { Browser, Page } from 'playwright-core';
import { closeBrowser, launchBrowser } from '../support/browser';
import { checkPage, NOTHING_SCROLLS, sidewaysScrollingAcross, signInContext } from '../support/consoleBrowser';
import { createTenant, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { adminCli, createUserWithCli, startSignInApi, uniqueEmail } from '../support/signInApi';
import { submitWith } from '../support/signInPages';
import type { TestApi } from '../support/testApi';

/**
 * The pages of "nobody gets more than they were given" in a real browser, by their labels: an
 * admin picks the Application of a new key among the organization's own, is told why a stronger
 * person's page offers no change, and gets "Not allowed" for a key carrying permissions they
 * lack. Each page passes the axe check and scrolls sideways nowhere at 375, 1,280 and 1,440 px.
 */
const PASSWORD = 'correct horse battery staple 12';
const REPORTING = 'Nightly candidate enrichment and reporting pipeline for the EMEA recruiting team';

let srv: TestApi;
let tenant: TestTenant;
let browser: Browser;
let page: Page;
let reportingId = '';
let strongerId = '';

beforeAll(async () => {
  srv = await startSignInApi();
  tenant = await createTenant({ credits: 100 });
  for (const name of ['Sourcing integrations (Greenhouse, Lever and Workday sync)', REPORTING, 'Internal tools']) {
    const made = await adminCli(srv, 'application', 'create', '--org', tenant.orgId, '--name', name);
    if (name === REPORTING) reportingId = made.json.application_id;
  }
  const stronger = await createUserWithCli(srv, {
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    email: uniqueEmail('maximiliane.oberhauser-richthofen'),
    permissions: ['candidates.search', 'audit.v1:read', 'usage.v1:read', 'webhooks.v1:manage'],
    role: 'admin',
  });
  strongerId = stronger.userId;
  browser = await launchBrowser();
  const context = await browser.newContext();
  const email = uniqueEmail('grants-admin');
  const made = await createUserWithCli(srv, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions: ['candidates.search'], role: 'admin' });
  await signInContext(context, made.setupUrl, email, PASSWORD);
  page = await context.newPage();
});
afterAll(async () => {
  await closeBrowser(browser);
  await srv?.close();
});

async function expectFitsAndAccessible(name: string): Promise<void> {
  expect(await checkPage(page, name)).toEqual([]);
  expect(await sidewaysScrollingAcross(page)).toEqual(NOTHING_SCROLLS);
}

test('"Create an API key": the Application select lists the organization\'s own applications, the first chosen; the key goes where the admin picked', async () => {
  await page.goto(`${srv.url}/console/keys/new`);
  await page.getByRole('heading', { level: 1, name: 'Create an API key' }).waitFor();
  const application = page.getByLabel('Application', { exact: true });
  expect(await application.inputValue()).toBe(tenant.applicationId);
  expect(await application.locator('option:checked').innerText()).toBe(`Default application (${tenant.applicationId})`);
  expect(await application.locator('option').count()).toBe(4);
  await expectFitsAndAccessible('key-new-application');

  await page.getByLabel('Name', { exact: true }).fill('Reporting pipeline key');
  await application.selectOption({ label: `${REPORTING} (${reportingId})` });
  await page.getByLabel('candidates.search', { exact: true }).check();
  await submitWith(page, 'Create key');
  await page.getByRole('heading', { level: 1, name: 'Your new API key' }).waitFor();
  const key = (await page.locator('code#new-secret').innerText()).trim();
  const whoami = await api(srv.url, 'GET', '/v1/whoami', { key });
  expect(whoami.json.application_id).toBe(reportingId);
});

test('"Edit person" of a person holding permissions the admin lacks names them and offers no change', async () => {
  await page.goto(`${srv.url}/console/team/${strongerId}`);
  await page.getByRole('heading', { level: 1, name: 'Edit person' }).waitFor();
  expect(await page.locator('main').innerText()).toMatch(/has permissions you do not have yourself \(audit\.v1:read, usage\.v1:read, webhooks\.v1:manage\)/);
  expect(await page.getByRole('button', { name: 'Save' }).count()).toBe(0);
  expect(await page.getByRole('button', { name: 'Disable person' }).count()).toBe(0);
  await expectFitsAndAccessible('team-edit-stronger');
});

test('"Rotate" on a key carrying permissions the admin lacks is "Not allowed", naming them', async () => {
  const res = await page.goto(`${srv.url}/console/keys/${tenant.keyId}/rotate`);
  expect(res?.status()).toBe(403);
  await page.getByRole('heading', { level: 1, name: 'Not allowed' }).waitFor();
  expect(await page.getByRole('alert').innerText()).toMatch(
    /^You cannot rotate this key: its successor would keep permissions you do not have yourself: .*audit\.v1:read/,
  );
  await expectFitsAndAccessible('key-rotate-not-allowed');
});
