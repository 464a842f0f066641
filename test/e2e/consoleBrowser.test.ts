import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeBrowser, launchBrowser } from '../support/browser';
import { checkPage, createPersonWithCli, setUpAndSignIn } from '../support/consoleBrowser';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startSignInApi, uniqueEmail } from '../support/signInApi';
import { submitWith } from '../support/signInPages';
import type { TestApi } from '../support/testApi';

/**
 * The organization console in a real browser, driven by the labels DECISIONS.md fixes
 * ("Organization console"): the operator makes an admin with the CLI; the admin sets a password,
 * signs in and lands on Overview; every page passes an axe-core check (no serious or critical
 * violation).
 */
jest.setTimeout(240_000);

const PASSWORD = 'correct horse battery staple 12';
const ADMIN_PERMISSIONS = ['candidates.search', 'jobs.v1:read', 'limits.v1:read', 'audit.v1:read'];

let srv: TestApi;
let tenant: TestTenant;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const admin = { userId: '', email: uniqueEmail('admin') };

beforeAll(async () => {
  srv = await startSignInApi();
  tenant = await createTenant({ credits: 100 });
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
});
afterAll(async () => {
  await closeBrowser(browser);
  await srv?.close();
});

const NAV = ['Overview', 'API keys', 'Limits', 'Budgets', 'Usage', 'Webhooks', 'Jobs', 'Team', 'Audit log', 'Connected applications'];

async function expectAccessible(name: string): Promise<void> {
  expect(await checkPage(browser, page, name)).toEqual([]);
}

test('a page of the console without a session sends the browser to sign in, and signing in comes back to it', async () => {
  const res = await fetch(`${srv.url}/console/team`, { redirect: 'manual' });
  expect(res.status).toBe(303);
  expect(res.headers.get('location')).toBe('/api/oauth/signin?return_to=%2Fconsole%2Fteam');
});

test('the operator makes an admin; the admin sets a password, signs in and lands on Overview with the navigation', async () => {
  const made = createPersonWithCli(srv, {
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    email: admin.email,
    permissions: ADMIN_PERMISSIONS,
    role: 'admin',
  });
  admin.userId = made.userId;
  await setUpAndSignIn(page, srv, made.setupUrl, admin.email, PASSWORD);
  expect(new URL(page.url()).pathname).toBe('/console/overview');
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  const nav = page.getByRole('navigation');
  expect(await nav.getByRole('link').allInnerTexts()).toEqual(NAV);
  expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1);
  await expectAccessible('overview');
});

test('an unknown console path is the console 404 page; "Connected applications" carries the navigation', async () => {
  const res = await page.goto(`${srv.url}/console/nothing-here`);
  expect(res?.status()).toBe(404);
  await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
  await page.getByRole('navigation').getByRole('link', { name: 'Connected applications' }).click();
  await page.getByRole('heading', { level: 1, name: 'Connected applications' }).waitFor();
  expect(await page.getByRole('navigation').getByRole('link').allInnerTexts()).toEqual(NAV);
  await expectAccessible('connections');
});

test('"Sign out" ends the session: the console asks to sign in again', async () => {
  await page.goto(`${srv.url}/console/overview`);
  await submitWith(page, 'Sign out');
  await page.goto(`${srv.url}/console/overview`);
  expect(new URL(page.url()).pathname).toBe('/api/oauth/signin');
});
