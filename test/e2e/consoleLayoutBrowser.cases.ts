import type { Browser, Page } from 'playwright-core';
import { recordAuditEvent } from '../../core/audit/auditLog';
import { setBudget } from '../../core/credits/credits';
import { createApiKey } from '../../core/keys/apiKeys';
import { ALL_PERMISSIONS } from '../../core/keys/permissions';
import { blockOperation, setCap } from '../../core/limits/limitSettings';
import { renameOrganization } from '../../core/tenancy/organizationName';
import { newId } from '../../core/ids';
import { closeBrowser, launchBrowser } from '../support/browser';
import { checkPage, NOTHING_SCROLLS, sidewaysScrollingAcross, signInContext } from '../support/consoleBrowser';
import { deadLetterAwaitingReplay, endDeadLetterWorkflows } from '../support/deadLetters';
import { createTenant, type TestTenant } from '../support/fixtures';
import { createUserWithCli, startSignInApi, uniqueEmail } from '../support/signInApi';
import { submitWith } from '../support/signInPages';
import type { TestApi } from '../support/testApi';
import { fileStores } from '../support/testStore';

/**
 * Nothing of the console is off-screen (issue 41 item 2): with an organization as a busy one looks
 * (a long name, 200 keys with long names and all nine permissions, people with long addresses,
 * caps and blocks, audit entries, a webhook endpoint with a long URL, its events and a dead letter),
 * no page scrolls sideways at 375, 1,280 or 1,440 px, nor does any
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
  // Loopback endpoints allowed: the workspace gets one (never called: no worker runs here).
  srv = await startSignInApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
  tenant = await createTenant({ credits: 5000 });
  await renameOrganization(fileStores(), tenant.orgId, LONG);
  const keys: { key_id: string; family_id: string }[] = [];
  for (let i = 0; i < 200; i++) {
    keys.push(
      await createApiKey(fileStores(), {
        orgId: tenant.orgId,
        workspaceId: tenant.workspaceId,
        name: `${LONG} backend key number ${i}`,
        scopes: [...ALL_PERMISSIONS],
        audience: 'developer-api',
        createdBy: 'operator',
      }),
    );
  }
  // A page of finished jobs, each started by one of the long-named keys: the Jobs list's rows.
  const finished = new Date(Date.now() - 3600_000);
  await fileStores().jobs.insertJobs(
    tenant.workspaceId,
    keys.slice(0, 30).map((k, i) => {
      const jobId = newId('job');
      return {
        _id: jobId,
        orgId: tenant.orgId,
        workspaceId: tenant.workspaceId,
        applicationId: tenant.applicationId,
        familyId: k.family_id,
        keyId: k.key_id,
        status: 'completed' as const,
        fields: ['email' as const, 'phone' as const],
        searchId: null,
        requested: 1000 + i,
        counts: { requested: 1000 + i, delivered: 700 + i, not_found: 300, failed: 0, reused: 0, cancelled: 0, pending: 0 },
        stopReason: null,
        workflowId: `contact-retrieval-${jobId}`,
        deliveryQuotaAt: null,
        deliveriesReserved: 0,
        completedAt: finished,
        resultExpiresAt: new Date(finished.getTime() + 7 * 86_400_000),
        resultPurgeAt: new Date(finished.getTime() + 8 * 86_400_000),
        resultExpiredAt: null,
        resultPurgedAt: null,
        createdAt: new Date(finished.getTime() - (30 - i) * 60_000),
        updatedAt: finished,
      };
    }),
  );
  const settings = { readCacheMs: 0 };
  await setCap(fileStores(), settings, {
    orgId: tenant.orgId,
    operation: 'candidates.search',
    scope: { type: 'key', id: tenant.keyId },
    requestsPerMinute: 30,
    actor: 'customer',
    now: Date.now,
  });
  await blockOperation(fileStores(), settings, {
    orgId: tenant.orgId,
    operation: 'person_matches.create',
    scope: { type: 'organization', id: tenant.orgId },
    actor: 'customer',
    now: Date.now,
  });
  await setBudget(srv.deps, { orgId: tenant.orgId, familyId: tenant.familyId, amount: 1200 });
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
      now: new Date(),
      orgId: tenant.orgId,
      actor: `user:${made.userId}`,
      action: 'key.created',
      target: tenant.keyId,
      after: { name: `${LONG} backend key number ${i}`, scopes: [...ALL_PERMISSIONS], status: 'active' },
    });
  }
  browser = await launchBrowser();
  const context = await browser.newContext();
  await signInContext(context, made.setupUrl, adminEmail, PASSWORD);
  page = await context.newPage();
  await webhookActivity(made.userId);
});
afterAll(async () => {
  await closeBrowser(browser);
  if (srv) await endDeadLetterWorkflows(srv.deps.temporal, events);
  await srv?.close();
});

/** Delivery workflows this file starts on queues no worker polls, ended at the close. */
const events: string[] = [];
/** Pages of one endpoint, event, job and person, found as the data is made. */
const made = { eventId: '', jobId: '', personId: '' };

/**
 * A webhook endpoint with a long URL, a test event (its free test job and event pages) and a dead
 * letter among the deliveries, made through the console as an admin would.
 */
async function webhookActivity(personId: string): Promise<void> {
  made.personId = personId;
  await page.goto(`${srv.url}/console/webhooks`);
  await page.getByLabel('Endpoint URL').fill(`https://127.0.0.1:8443/hooks/${LONG.toLowerCase().replace(/\W+/g, '-')}/talent-platform/receiver`);
  await submitWith(page, 'Register endpoint');
  await page.getByRole('heading', { level: 1, name: 'Your new signing secret' }).waitFor();
  await page.goto(`${srv.url}/console/webhooks`);
  await submitWith(page, 'Send test event');
  const heading = page.getByRole('heading', { level: 1, name: /^Event evt_/ });
  await heading.waitFor();
  made.eventId = (await heading.innerText()).replace('Event ', '').trim();
  made.jobId = /test job (job_\w+)/.exec(await page.getByRole('status').innerText())?.[1] ?? '';
  events.push(made.eventId);
  const [endpoint] = await srv.deps.stores.webhooks.endpoints.endpointsOfWorkspace(tenant.workspaceId);
  const dead = await deadLetterAwaitingReplay(srv.deps.temporal, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, endpointId: endpoint!._id });
  events.push(dead.eventId);
}

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
  ['/console/security', 'Security'],
];

test.each(PAGES)('%s fits at 375, 1,280 and 1,440 px with a busy organization', async (path, heading) => {
  await page.goto(`${srv.url}${path}`);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  expect(await page.locator('header .brand').innerText()).toContain(LONG);
  const name = path.split('/').filter(Boolean).slice(1).join('-') || 'root';
  expect(await checkPage(page, `busy-${name}`)).toEqual([]);
  expect(await sidewaysScrollingAcross(page)).toEqual(NOTHING_SCROLLS);
});

test("an endpoint's event, a job and a person's page fit at 375, 1,280 and 1,440 px", async () => {
  for (const [path, heading, name] of [
    [`/console/webhooks/events/${made.eventId}`, `Event ${made.eventId}`, 'event'],
    [`/console/jobs/${made.jobId}`, `Job ${made.jobId}`, 'job'],
    [`/console/team/${made.personId}`, 'Edit person', 'person'],
  ]) {
    await page.goto(`${srv.url}${path}`);
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    expect(await checkPage(page, `busy-${name}`)).toEqual([]);
    expect([path, await sidewaysScrollingAcross(page)]).toEqual([path, NOTHING_SCROLLS]);
  }
});

test('at 1,280 px the keys table shows every column and the actions of the first row', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${srv.url}/console/keys`);
  const row = page.getByRole('row').nth(1);
  const revoke = row.getByRole('link', { name: /^Revoke / });
  // The workspace by name: the one org create made without a name is the "Default workspace".
  expect(await row.getByRole('cell').nth(2).innerText()).toBe('Default workspace');
  const box = await revoke.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.x + box!.width).toBeLessThanOrEqual(1280);
});

test('at 1,280 px the jobs list names the key that started each job and shows every column', async () => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${srv.url}/console/jobs`);
  const rows = page.getByRole('row').filter({ hasText: `${LONG} backend key number` });
  // A page of 25, newest first: the test event's job, then the 30th seeded job (key number 29) and 23 older ones.
  expect(await page.locator('tbody tr').count()).toBe(25);
  expect(await rows.count()).toBe(24);
  const started = (await rows.first().getByRole('cell').nth(1).innerText()).split('\n');
  expect(started).toEqual([`${LONG} backend key number 29`, expect.stringMatching(/^key:key_\w+$/)]);
  const created = await page.getByRole('columnheader', { name: 'Created' }).boundingBox();
  expect(created).not.toBeNull();
  expect(created!.x + created!.width).toBeLessThanOrEqual(1280);
});
