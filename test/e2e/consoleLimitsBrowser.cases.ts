import type { Browser, BrowserContext, Page } from 'playwright-core';
import { creditBalance } from '../../core/credits/credits';
import { closeBrowser, launchBrowser } from '../support/browser';
import { checkPage, sidewaysScrolling, signInContext } from '../support/consoleBrowser';
import { READ_ONLY_NOTE } from '../../api/console/pageAccess';
import { createTenant, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { createUserWithCli, startSignInApi, uniqueEmail } from '../support/signInApi';
import { submitWith, submitWithin } from '../support/signInPages';
import type { TestApi } from '../support/testApi';

/**
 * The console's Limits, Budgets and Audit log pages in a real browser, by the labels of
 * DECISIONS.md "Organization console": an admin sets a cap that GET /v1/operational-limits
 * reports as an override, is refused a cap at the standard, blocks an operation (the API refuses
 * it) and clears it; sets an organization budget below a paid call's price (402, nothing
 * charged); the audit log lists each change as `user:<id>` and downloads them as CSV. A member
 * sees budgets without forms and a crafted post is 403. Each page passes the axe check.
 */

const PASSWORD = 'correct horse battery staple 12';
const PERMISSIONS = ['candidates.search', 'limits.v1:read'];

let srv: TestApi;
let tenant: TestTenant;
let other: TestTenant;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let adminId = '';
let n = 0;

beforeAll(async () => {
  srv = await startSignInApi();
  tenant = await createTenant({ credits: 100 });
  other = await createTenant({ credits: 0 });
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  const email = uniqueEmail('limits-admin');
  const made = await createUserWithCli(srv, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions: PERMISSIONS, role: 'admin' });
  adminId = made.userId;
  await signInContext(context, made.setupUrl, email, PASSWORD);
});
afterAll(async () => {
  await closeBrowser(browser);
  await srv?.close();
});

async function expectAccessible(name: string): Promise<void> {
  expect(await checkPage(page, name)).toEqual([]);
}

const limitsOf = async (query: string) => api(srv.url, 'GET', `/v1/operational-limits?${query}`, { key: tenant.key });

async function openLimits(): Promise<void> {
  await page.goto(`${srv.url}/console/limits`);
  await page.getByRole('heading', { level: 1, name: 'Limits' }).waitFor();
}

async function fillCapForm(operation: string, appliesTo: string, target: string, perMinute: string): Promise<void> {
  await page.getByLabel('Operation', { exact: true }).selectOption(operation);
  await page.getByLabel('Applies to', { exact: true }).selectOption({ label: appliesTo });
  await page.getByLabel('Target', { exact: true }).selectOption(target);
  await page.getByLabel('Requests per minute', { exact: true }).fill(perMinute);
}

test('Limits: the entries, the operator-set rate shown read-only, and a cap that /v1/operational-limits reports as an override', async () => {
  await openLimits();
  const text = await page.locator('main').innerText();
  expect(text).toMatch(/25 requests per second, set by the service operator/);
  expect(text).toMatch(/25 requests at a time, set by the service operator/);
  await expectAccessible('limits');

  // "Target" offers the organization's applications, key families and keys by name, never a typed id.
  const target = page.getByLabel('Target', { exact: true });
  expect(await target.evaluate((el) => el.tagName)).toBe('SELECT');
  const groups = await target.locator('optgroup').evaluateAll((els) => els.map((el) => el.getAttribute('label')));
  expect(groups).toEqual(['Applications', 'Key families', 'Keys']);
  expect(await target.locator('optgroup[label="Applications"] option').first().innerText()).toBe('Default application');
  await fillCapForm('contact_retrieval_jobs.get', 'Key', tenant.keyId, '30');
  const chosen = (await target.locator('option:checked').innerText()).trim();
  expect(chosen).not.toContain(tenant.keyId);
  expect(chosen).toMatch(/^Key sk_live_ext_\w+/); // a key named by default: its prefix
  await submitWith(page, 'Set cap');
  expect(await page.getByRole('status').innerText()).toBe('The cap is set. It applies to the next request.');
  const row = page.locator('tr', { hasText: 'contact_retrieval_jobs.get' }).filter({ hasText: '30 per minute' });
  expect(await row.count()).toBe(1);
  expect(await row.innerText()).toContain(chosen); // the target by name, its id beneath

  const res = await limitsOf(`operation=contact_retrieval_jobs.get&key_id=${tenant.keyId}`);
  expect(res.status).toBe(200);
  const entry = (res.json.data as Array<Record<string, unknown>>).find((e) => (e.scope as { type: string }).type === 'key');
  expect(entry).toMatchObject({ source: 'override', requests_per_minute: 30 });
});

test('a cap at the standard is refused with a clear message, the values kept; a key of another organization is not found', async () => {
  await openLimits();
  await fillCapForm('whoami', 'Organization', '', '1500');
  const answer = page.waitForResponse((r) => r.url().endsWith('/console/limits') && r.request().method() === 'POST');
  await page.getByRole('button', { name: 'Set cap', exact: true }).click();
  expect((await answer).status()).toBe(422);
  await page.getByRole('alert').waitFor();
  expect(await page.getByRole('alert').innerText()).toMatch(/a cap on whoami must be below its standard limit of 1,500 a minute: at most 1,499 a minute/);
  expect(await page.getByLabel('Requests per minute', { exact: true }).inputValue()).toBe('1500');
  expect(await page.getByLabel('Operation', { exact: true }).inputValue()).toBe('whoami');
  await expectAccessible('limits-refused');
  // The limits table may scroll inside its frame on a phone; the page itself does not.
  expect((await sidewaysScrolling(page, 375)).filter((s) => s.startsWith('page '))).toEqual([]);

  // The select offers only the organization's own targets; a crafted post naming another's key, or none, is not found.
  expect(await page.getByLabel('Target', { exact: true }).locator(`option[value="${other.keyId}"]`).count()).toBe(0);
  const csrf = await page.locator('input[name=csrf_token]').first().inputValue();
  for (const keyId of [other.keyId, 'key_doesnotexist0000']) {
    const crafted = await page.request.post(`${srv.url}/console/limits`, {
      form: { csrf_token: csrf, operation: 'whoami', applies_to: 'key', target: keyId, requests_per_minute: '10' },
      maxRedirects: 0,
    });
    expect(crafted.status()).toBe(404);
  }
  expect((await limitsOf(`operation=whoami`)).json.data.every((e: { source: string }) => e.source !== 'override')).toBe(true);
});

test('Block refuses the operation on the API; Clear lifts it', async () => {
  await openLimits();
  await fillCapForm('candidates.search', 'Organization', '', '');
  await submitWith(page, 'Block');
  expect(await page.getByRole('status').innerText()).toBe('The operation is blocked for that scope.');
  const blocked = await api(srv.url, 'POST', '/v1/candidates/search', {
    key: tenant.key,
    body: { query: 'manager' },
    idempotencyKey: `console-block-${Date.now()}-${++n}`,
  });
  expect(blocked.status).toBe(429);
  const entry = (await limitsOf('operation=candidates.search&scope=organization')).json.data[0];
  expect(entry).toMatchObject({ status: 'denied', source: 'override' });

  const row = page.locator('tr', { hasText: 'candidates.search' }).filter({ hasText: 'Blocked' });
  await submitWithin(row, 'Clear the block on candidates.search for Organization ' + tenant.orgId);
  expect(await page.getByRole('status').innerText()).toBe('Cleared: the standard limit applies again.');
  const after = (await limitsOf('operation=candidates.search&scope=organization')).json.data[0];
  expect(after).toMatchObject({ status: 'active' });
  expect(after.source).not.toBe('override');
});

test("Budgets: an organization budget below a paid call's price refuses it with 402 and charges nothing", async () => {
  await page.goto(`${srv.url}/console/budgets`);
  await page.getByRole('heading', { level: 1, name: 'Budgets' }).waitFor();
  await expectAccessible('budgets');
  // A phone's width: the key family table with its forms fits, nothing scrolls sideways.
  expect(await sidewaysScrolling(page, 375)).toEqual([]);
  await page.getByLabel('Organization budget', { exact: true }).fill('0');
  await submitWith(page, 'Save organization budget');
  expect(await page.getByRole('status').innerText()).toBe('The budget is saved.');
  expect(await page.locator('main').innerText()).toMatch(/Remaining: 0 credits/);

  const charges = (await srv.deps.stores.credits.ledgerEntriesOfOrgs([tenant.orgId])).filter((e) => e.kind === 'charge').length;
  const res = await api(srv.url, 'POST', '/v1/person-matches', {
    key: tenant.key,
    body: { email: 'nobody-at-all@nowhere.example' },
    idempotencyKey: `console-budget-${Date.now()}-${++n}`,
  });
  expect(res.status).toBe(402);
  expect(res.json.code).toBe('organization_budget_exhausted');
  expect((await srv.deps.stores.credits.ledgerEntriesOfOrgs([tenant.orgId])).filter((e) => e.kind === 'charge').length).toBe(charges);
  expect(await creditBalance(srv.deps, tenant.orgId)).toBe(100);

  const family = page.locator('tr', { hasText: tenant.familyId });
  await family.getByLabel(/^Budget/).fill('7');
  await submitWithin(family, `Save budget for ${(await family.locator('td').first().innerText()).trim()}`);
  expect(await page.locator('tr', { hasText: tenant.familyId }).innerText()).toMatch(/7 credits/);
  // With "Remove budget" beside "Save budget", the widest a row gets, it still fits.
  await expectAccessible('budgets-family-set');
  expect(await sidewaysScrolling(page, 375)).toEqual([]);
  await submitWithin(
    page.locator('tr', { hasText: tenant.familyId }),
    `Remove budget for ${(await page.locator('tr', { hasText: tenant.familyId }).locator('td').first().innerText()).trim()}`,
  );
  expect(await page.locator('tr', { hasText: tenant.familyId }).innerText()).toMatch(/No budget/);
});

test('Audit log: each change with its actor user:<id>, filtered by action, and the CSV download holds them', async () => {
  await page.goto(`${srv.url}/console/audit`);
  await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
  await expectAccessible('audit');
  const table = await page.locator('table').innerText();
  for (const action of ['limit.cap_set', 'limit.blocked', 'limit.cleared', 'budget.set', 'budget.removed']) expect(table).toContain(action);
  expect(table).toContain(`user:${adminId}`);

  await page.getByLabel('Action', { exact: true }).selectOption('limit.cap_set');
  await page.getByLabel('Actor', { exact: true }).fill(`user:${adminId}`);
  await submitWith(page, 'Filter');
  const rows = page.locator('tbody tr');
  expect(await rows.count()).toBe(1);
  expect(await rows.first().innerText()).toMatch(/requests_per_minute: 30/);

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
  expect(download.suggestedFilename()).toBe('audit-log.csv');
  const csv = await (await import('node:fs/promises')).readFile((await download.path())!, 'utf8');
  expect(csv.split('\r\n')[0]).toBe('time,actor,action,target,before,after,client_address,event_id');
  expect(csv).toContain(`user:${adminId},limit.cap_set,${tenant.keyId}`);
  expect(csv).not.toContain('limit.blocked');
});

test("a member's navigation has only the pages they may read; each page they read but cannot change says so; budgets without forms, and a crafted post is 403 with nothing changed", async () => {
  const email = uniqueEmail('limits-member');
  const made = await createUserWithCli(srv, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions: PERMISSIONS, role: 'member' });
  const memberContext = await browser.newContext();
  const member = await memberContext.newPage();
  try {
    await signInContext(memberContext, made.setupUrl, email, PASSWORD);
    await member.goto(`${srv.url}/console/overview`);
    // The navigation lists only what a member may read: no "Audit log" (no audit.v1:read), no "Settings".
    const links = await member.getByRole('navigation', { name: 'Console' }).getByRole('link').allInnerTexts();
    expect(links.map((l) => l.trim())).toEqual([
      'Overview',
      'API keys',
      'Limits',
      'Budgets',
      'Usage',
      'Webhooks',
      'Jobs',
      'Team',
      'Connected applications',
      'Security',
    ]);
    // Every page with changes only admins make says so to the member, in one sentence; the admin's says nothing of it.
    for (const [path, heading] of [
      ['/console/keys', 'API keys'],
      ['/console/limits', 'Limits'],
      ['/console/budgets', 'Budgets'],
      ['/console/webhooks', 'Webhooks'],
      ['/console/webhooks/deliveries', 'Webhook deliveries'],
      ['/console/team', 'Team'],
    ]) {
      await member.goto(`${srv.url}${path}`);
      await member.getByRole('heading', { level: 1, name: heading }).waitFor();
      expect(await member.locator('main p.read-only').allInnerTexts()).toEqual([READ_ONLY_NOTE]);
      expect(await checkPage(member, `member-${heading.toLowerCase().replace(/ /g, '-')}`)).toEqual([]);
      await page.goto(`${srv.url}${path}`);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      expect(await page.locator('main p.read-only').count()).toBe(0);
    }
    await member.goto(`${srv.url}/console/budgets`);
    await member.getByRole('heading', { level: 1, name: 'Budgets' }).waitFor();
    expect(await member.locator('main form').count()).toBe(0);
    expect(await sidewaysScrolling(member, 375)).toEqual([]);
    await member.goto(`${srv.url}/console/limits`);
    expect(await member.getByRole('button', { name: 'Set cap' }).count()).toBe(0);
    expect((await member.goto(`${srv.url}/console/audit`))?.status()).toBe(403);

    const csrf = await member.locator('input[name=csrf_token]').first().inputValue();
    const post = await member.request.post(`${srv.url}/console/budgets`, { form: { csrf_token: csrf, budget: '0' }, maxRedirects: 0 });
    expect(post.status()).toBe(403);
    expect(await post.text()).toContain('Not allowed');
    const cap = await member.request.post(`${srv.url}/console/limits`, {
      form: { csrf_token: csrf, operation: 'whoami', applies_to: 'organization', target: '', requests_per_minute: '5' },
      maxRedirects: 0,
    });
    expect(cap.status()).toBe(403);
    expect((await limitsOf('operation=whoami&scope=organization')).json.data[0].requests_per_minute).toBeNull();
  } finally {
    await memberContext.close();
  }
});
