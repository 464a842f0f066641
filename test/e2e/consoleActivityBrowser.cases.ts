import { readFile } from 'node:fs/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { listAuditEvents } from '../../core/audit/auditLog';
import { CHARGE_OPERATION } from '../../core/jobs/chunkSettlement';
import { closeBrowser, launchBrowser } from '../support/browser';
import { checkPage, signInContext } from '../support/consoleBrowser';
import { jobResultItems, terminateRunningJobWorkflows, waitForJobToFinish } from '../support/contactRetrievalJobs';
import { providerAnswerFor, startContactProviderServer, type ContactProviderServer } from '../support/contactProviderServer';
import { createTenant, insertTestPeople, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { createUserWithCli, startSignInApi, uniqueEmail } from '../support/signInApi';
import { submitWith } from '../support/signInPages';
import type { TestApi } from '../support/testApi';
import { startTestWorker, type TestWorker } from '../support/testWorker';

/**
 * Overview, Usage and Jobs of the organization console in a real browser, driven by the labels
 * of DECISIONS.md: an admin runs a job with an API key and finds it on Jobs and on its own page
 * with its result; cancels a running job from its page; downloads the ledger CSV and finds the
 * job's charge under the receipt id the job's result carries; sees that day's spend on the
 * overview's chart. Every page passes the axe check; CONSOLE_SHOTS=1 writes screenshots.
 */

const PASSWORD = 'correct horse battery staple 12';
const ADMIN_PERMISSIONS = ['jobs.v1:read', 'jobs.v1:write', 'usage.v1:read', 'audit.v1:read'];

let provider: ContactProviderServer;
let srv: TestApi;
let worker: TestWorker;
let tenant: TestTenant;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const admin = { userId: '', email: uniqueEmail('activity-admin') };
let n = 0;
const people = (count: number) => {
  n += 1;
  return Array.from({ length: count }, (_, i) => `per_act${String(n).padStart(3, '0')}${String(i).padStart(5, '0')}Z`);
};

async function runJob(t: TestTenant, personIds: string[]): Promise<string> {
  await insertTestPeople(srv.deps.stores, personIds);
  const res = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs', {
    key: t.key,
    body: { person_ids: personIds },
    idempotencyKey: `act-${Date.now()}-${n}`,
  });
  expect(res.status).toBe(202);
  return res.json.job_id;
}

async function expectAccessible(name: string): Promise<void> {
  expect(await checkPage(page, name)).toEqual([]);
}

const finished = { jobId: '', delivered: 0, receiptIds: [] as string[] };

beforeAll(async () => {
  provider = await startContactProviderServer();
  srv = await startSignInApi({
    CONTACT_PROVIDER: 'http',
    CONTACT_PROVIDER_URL: provider.url,
    CONTACT_PROVIDER_TIMEOUT_MS: '20000',
    CONTACT_PROVIDER_RETRY_BASE_MS: '10',
    CONTACT_JOB_CHUNK_SIZE: '4',
    CONTACT_JOB_CONCURRENCY: '1',
  });
  worker = await startTestWorker(srv.config);
  tenant = await createTenant({ credits: 500 });
  browser = await launchBrowser();
  context = await browser.newContext({ acceptDownloads: true });
  page = await context.newPage();
  const made = await createUserWithCli(srv, {
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    email: admin.email,
    permissions: ADMIN_PERMISSIONS,
    role: 'admin',
  });
  admin.userId = made.userId;
  await signInContext(context, made.setupUrl, admin.email, PASSWORD);
});
afterAll(async () => {
  await closeBrowser(browser);
  if (srv) await terminateRunningJobWorkflows(srv.deps.temporal).catch(() => undefined);
  await worker?.stop();
  await srv?.close();
  await provider?.close();
});

test('a job run with an API key is on Jobs and on its own page, with counts, its event and its result', async () => {
  const ids = people(10);
  finished.jobId = await runJob(tenant, ids);
  const job = await waitForJobToFinish(srv.url, tenant.key, finished.jobId);
  expect(job.status).toBe('completed');
  finished.delivered = ids.filter((p) => providerAnswerFor(p).status === 'found').length;
  expect(job.counts.delivered).toBe(finished.delivered);
  finished.receiptIds = (await jobResultItems(srv.url, tenant.key, finished.jobId)).flatMap((i) => (i.receipt_id ? [i.receipt_id] : []));
  expect(finished.receiptIds.length).toBe(finished.delivered);

  await page.goto(`${srv.url}/console/jobs`);
  await page.getByRole('heading', { level: 1, name: 'Jobs' }).waitFor();
  const row = page.getByRole('row').filter({ hasText: finished.jobId });
  expect(await row.getByRole('cell').allInnerTexts()).toEqual([
    finished.jobId,
    // Started by: the key's name, its id beneath.
    expect.stringMatching(new RegExp(`^Key .+\\nkey:${tenant.keyId}$`)),
    'completed',
    '10',
    String(finished.delivered),
    String(10 - finished.delivered),
    '0',
    '0',
    '0',
    '0',
    expect.stringMatching(/UTC$/),
  ]);
  // No contact value in the list.
  const found = providerAnswerFor(ids.find((p) => providerAnswerFor(p).status === 'found')!) as { emails: string[] };
  expect(await page.content()).not.toContain(found.emails[0]);
  await expectAccessible('jobs');

  await page.getByLabel('Status', { exact: true }).selectOption('running');
  await submitWith(page, 'Filter');
  expect(new URL(page.url()).searchParams.get('status')).toBe('running');
  expect(await page.getByRole('row').filter({ hasText: finished.jobId }).count()).toBe(0);

  await page.goto(`${srv.url}/console/jobs`);
  await page.getByRole('link', { name: finished.jobId }).click();
  await page.getByRole('heading', { level: 1, name: `Job ${finished.jobId}` }).waitFor();
  expect(await page.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);
  const result = page.getByRole('region', { name: 'Result' });
  expect(await result.getByRole('row').count()).toBe(11);
  expect(await result.innerText()).toContain(found.emails[0]);
  for (const receipt of finished.receiptIds) expect(await result.innerText()).toContain(receipt);
  expect(await page.getByRole('link', { name: "This job's webhook deliveries" }).getAttribute('href')).toBe(
    `/console/webhooks/deliveries?job_id=${finished.jobId}`,
  );
  await expectAccessible('job');

  // Another organization's job is the same 404 page as an absent one.
  const other = await createTenant({ credits: 20 });
  const otherJob = await runJob(other, people(2));
  for (const id of [otherJob, 'job_doesnotexist000000']) {
    const res = await page.goto(`${srv.url}/console/jobs/${id}`);
    expect(res?.status()).toBe(404);
    await page.getByRole('heading', { level: 1, name: 'Not found' }).waitFor();
  }
  await waitForJobToFinish(srv.url, other.key, otherJob);
});

test('"Cancel job" on a running job\'s page cancels it, through the console road with its audit entry', async () => {
  // A member (even one holding jobs.v1:write) gets no button, and a crafted post is refused.
  const memberContext = await browser.newContext();
  const memberPage = await memberContext.newPage();
  const memberEmail = uniqueEmail('activity-member');
  const member = await createUserWithCli(srv, {
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    email: memberEmail,
    permissions: ADMIN_PERMISSIONS,
    role: 'member',
  });
  await signInContext(memberContext, member.setupUrl, memberEmail, PASSWORD);
  provider.latencyMs = 1500;
  try {
    const jobId = await runJob(tenant, people(24));
    await memberPage.goto(`${srv.url}/console/jobs/${jobId}`);
    await memberPage.getByRole('heading', { level: 1, name: `Job ${jobId}` }).waitFor();
    expect(await memberPage.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);
    const csrf = await memberPage.locator('input[name=csrf_token]').first().getAttribute('value');
    const refused = await memberContext.request.post(`${srv.url}/console/jobs/${jobId}/cancel`, { form: { csrf_token: csrf ?? '' }, maxRedirects: 0 });
    expect(refused.status()).toBe(403);
    expect(await refused.text()).toContain('Not allowed');
    expect((await api(srv.url, 'GET', `/v1/contact-retrieval-jobs/${jobId}`, { key: tenant.key })).json.status).toBe('running');
    await memberContext.close();

    await page.goto(`${srv.url}/console/jobs/${jobId}`);
    await page.getByRole('heading', { level: 1, name: `Job ${jobId}` }).waitFor();
    await expectAccessible('job-running');
    await submitWith(page, 'Cancel job');
    expect(new URL(page.url()).pathname).toBe(`/console/jobs/${jobId}`);
    const job = await waitForJobToFinish(srv.url, tenant.key, jobId);
    expect(job.status).toBe('cancelled');
    expect(job.counts.cancelled).toBeGreaterThan(0);
    await page.reload();
    expect(await page.getByRole('button', { name: 'Cancel job' }).count()).toBe(0);
    expect(await page.locator('.figures').innerText()).toContain('cancelled');
    const audit = await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'job.cancelled' });
    expect(audit.data[0]).toMatchObject({ actor: `user:${admin.userId}`, target: jobId });
  } finally {
    provider.latencyMs = 0;
  }
});

test("the ledger CSV download holds the job's charge under the receipt id its result carries", async () => {
  await page.goto(`${srv.url}/console/usage`);
  await page.getByRole('heading', { level: 1, name: 'Usage' }).waitFor();
  await page.getByLabel('Operation', { exact: true }).selectOption(CHARGE_OPERATION);
  await submitWith(page, 'Filter');
  const ledger = page.getByRole('region', { name: 'Ledger entries' });
  expect(await ledger.innerText()).toContain(finished.receiptIds[0]);
  await expectAccessible('usage');

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download ledger CSV' }).click()]);
  expect(download.suggestedFilename()).toBe('ledger.csv');
  const csv = await readFile((await download.path())!, 'utf8');
  const lines = csv.trim().split(/\r\n/);
  expect(lines[0]).toBe('receipt_id,kind,operation,key_name,family_id,amount,balance_after,time');
  const charges = lines.slice(1).map((l) => l.split(','));
  expect(charges.length).toBeGreaterThan(0);
  for (const c of charges) expect(c[2]).toBe(CHARGE_OPERATION);
  // Every delivered record's receipt is a charge of the job in the file, and they add up to its deliveries.
  const jobReceipts = new Set(finished.receiptIds);
  const jobCharges = charges.filter((c) => jobReceipts.has(c[0]));
  expect(new Set(jobCharges.map((c) => c[0]))).toEqual(jobReceipts);
  // Charges carry the page's minus sign.
  expect(jobCharges.reduce((sum, c) => sum + Number(c[5]), 0)).toBe(-finished.delivered);
  for (const c of jobCharges)
    expect(c).toEqual([c[0], 'charge', CHARGE_OPERATION, expect.stringMatching(/^Key /), tenant.familyId, c[5], c[6], expect.stringMatching(/Z$/)]);
});

test('the ledger CSV unfiltered adds up to the balance; the usage CSV has one row per bucket and operation', async () => {
  await srv.flushUsage();
  await worker.flushUsage();
  await page.goto(`${srv.url}/console/usage`);
  const [ledgerFile] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download ledger CSV' }).click()]);
  const ledgerRows = (await readFile((await ledgerFile.path())!, 'utf8'))
    .trim()
    .split(/\r\n/)
    .slice(1)
    .map((l) => l.split(','));
  const newest = ledgerRows[0];
  expect(ledgerRows.reduce((sum, r) => sum + Number(r[5]), 0)).toBe(Number(newest[6]));

  const [usageFile] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download usage CSV' }).click()]);
  expect(usageFile.suggestedFilename()).toBe('usage.csv');
  const usage = (await readFile((await usageFile.path())!, 'utf8')).trim().split(/\r\n/);
  expect(usage[0]).toBe('start,operation,success,client_error,rate_limited,server_error,credits');
  const rows = usage.slice(1).map((l) => l.split(','));
  const jobRow = rows.find((r) => r[1] === CHARGE_OPERATION);
  expect(jobRow).toBeDefined();
  expect(Number(jobRow![6])).toBeGreaterThanOrEqual(finished.delivered);
  const keys = rows.map((r) => `${r[0]} ${r[1]}`);
  expect(new Set(keys).size).toBe(keys.length);
});

test("the overview's chart and figures show the day's spend once the counters are flushed", async () => {
  await srv.flushUsage();
  await worker.flushUsage();
  const ledger = await api(srv.url, 'GET', '/v1/usage?granularity=day', { key: tenant.key });
  expect(ledger.status).toBe(200);
  const spent = ledger.json.data.reduce((sum: number, p: { credits: number }) => sum + p.credits, 0);
  expect(spent).toBeGreaterThanOrEqual(finished.delivered);

  await page.goto(`${srv.url}/console/overview`);
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  const today = new Date().toISOString().slice(5, 10);
  const chart = page.getByRole('figure').filter({ hasText: 'Credits spent per day by operation' });
  await chart.getByText('Credits spent per day by operation as a table').click();
  const row = chart.getByRole('row').filter({ has: page.getByRole('rowheader', { name: today }) });
  const cells = await row.getByRole('cell').allInnerTexts();
  expect(Number(cells[cells.length - 1])).toBe(spent);
  expect(await chart.locator('svg[role=img]').getAttribute('aria-label')).toContain(`${spent} credits`);
  const figure = page.locator('.figures div').filter({ hasText: 'Credits spent today (UTC)' });
  expect(await figure.locator('dd').innerText()).toBe(spent.toLocaleString('en'));
  await expectAccessible('overview');
  const requests = page.locator('.figures div').filter({ hasText: 'Requests over 24 hours' });
  expect(Number((await requests.locator('dd').innerText()).replace(/,/g, ''))).toBeGreaterThanOrEqual(3);
});
