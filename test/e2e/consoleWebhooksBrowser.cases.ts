import type { Browser, BrowserContext, Page } from 'playwright-core';
import { verifySignature } from '../../core/webhooks/signPayload';
import { closeBrowser, launchBrowser } from '../support/browser';
import { checkPage, signInContext } from '../support/consoleBrowser';
import { terminateRunningJobWorkflows, waitForJobToFinish } from '../support/contactRetrievalJobs';
import { eventually } from '../support/eventually';
import { createTenant, insertTestPeople, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver';
import { createUserWithCli, startSignInApi, uniqueEmail } from '../support/signInApi';
import { submitWith, submitWithin } from '../support/signInPages';
import type { TestApi } from '../support/testApi';
import { startTestWorker, type TestWorker } from '../support/testWorker';

/**
 * The console's webhook pages in a real browser, by the labels DECISIONS.md fixes: an admin
 * registers an endpoint on a real HTTPS receiver that answers 500, runs a contact-retrieval job,
 * watches its event fail attempt after attempt and then dead-letter (on a short retry schedule,
 * RETRY_DELAYS_MS, instead of the spec's 21 hours), replays it once the receiver answers 200 and
 * sees it succeed, with one replay fewer left this hour; rotates the secret, shown once. Every
 * page passes the axe check.
 */

const PASSWORD = 'correct horse battery staple 12';
// Eight delays: quick failures, then a longer last gap in which the page shows failing attempts
// before the dead letter. The Temporal dev server fires a short timer about a second after it
// starts (history.timerProcessorMaxTimeShift, 1 s by default), so the failing attempts are on
// the page for several seconds before the last gap: one second is enough for it.
// The last gap is longer still, so the job's page is seen saying "retrying" before the dead letter.
const DELAYS = '400,400,400,400,400,400,400,5000';

let receiver: HttpsReceiver;
let srv: TestApi;
let worker: TestWorker;
let tenant: TestTenant;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let answer = 500;
let adminEmail = '';

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  receiver.respond(() => ({ status: answer, body: answer === 200 ? 'ok' : 'broken' }));
  srv = await startSignInApi({ WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOK_EXTRA_CA_FILE: receiver.caFile, RETRY_DELAYS_MS: DELAYS });
  worker = await startTestWorker(srv.config);
  tenant = await createTenant({ credits: 100 });
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  adminEmail = uniqueEmail('webhooks-admin');
  const made = await createUserWithCli(srv, {
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    email: adminEmail,
    permissions: ['jobs.v1:read'],
    role: 'admin',
  });
  await signInContext(context, made.setupUrl, adminEmail, PASSWORD);
  await page.goto(`${srv.url}/console/overview`);
});
afterAll(async () => {
  await closeBrowser(browser);
  if (srv) await terminateRunningJobWorkflows(srv.deps.temporal);
  await worker?.stop();
  await srv?.close();
  await receiver?.close();
});

async function expectAccessible(name: string): Promise<void> {
  expect(await checkPage(page, name)).toEqual([]);
}

const rows = () => page.locator('tbody tr');
const statuses = async () => (await rows().locator('.delivery-status').allInnerTexts()).map((s) => s.trim());

/** Reloads the page until `ready` holds for what it shows (the worker delivers in the background). */
async function reloadUntil<T>(what: string, ready: () => Promise<T | undefined>): Promise<T> {
  return eventually(
    what,
    async () => {
      await page.reload();
      return ready();
    },
    { timeoutMs: 60_000, intervalMs: 500 },
  );
}

let jobId = '';
let signingSecret = '';

/** What the job's page says of its job.completed event ("Event evt_…: …."), once it says it. */
async function jobEventStatus(id: string, state: RegExp): Promise<string> {
  await page.goto(`${srv.url}/console/jobs/${id}`);
  await page.getByRole('heading', { level: 1, name: `Job ${id}` }).waitFor();
  return reloadUntil(`the job's event ${state}`, async () => {
    const line = (await page.locator('main p', { hasText: /Event evt_/ }).innerText()).trim();
    return state.test(line) ? line : undefined;
  });
}

test('an admin registers an endpoint and is shown its signing secret once', async () => {
  await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
  await expectAccessible('webhooks-empty');
  await page.getByLabel('Endpoint URL').fill(`${receiver.url}/console-hooks`);
  await submitWith(page, 'Register endpoint');
  await page.getByRole('heading', { level: 1, name: 'Your new signing secret' }).waitFor();
  const secret = (await page.locator('code#new-secret').innerText()).trim();
  expect(secret).toMatch(/^whsec_/);
  signingSecret = secret;
  expect(await page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);
  await expectAccessible('webhooks-secret');

  await page.getByRole('link', { name: 'Back to Webhooks' }).click();
  await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
  expect(await page.locator('main').innerText()).toContain(`${receiver.url}/console-hooks`);
  expect(await page.content()).not.toContain(secret);
  await expectAccessible('webhooks');
});

test('a job finishes; its event fails attempt after attempt, then is dead-lettered, on the deliveries page', async () => {
  const people = ['per_consolehook000001A', 'per_consolehook000002A'];
  await insertTestPeople(srv.deps.stores, people);
  const created = await api(srv.url, 'POST', '/v1/contact-retrieval-jobs', {
    key: tenant.key,
    body: { person_ids: people },
    idempotencyKey: `console-hooks-${Date.now()}`,
  });
  expect(created.status).toBe(202);
  jobId = created.json.job_id;
  await waitForJobToFinish(srv.url, tenant.key, jobId);

  await page.goto(`${srv.url}/console/webhooks/deliveries?job_id=${jobId}`);
  await page.getByRole('heading', { level: 1, name: 'Webhook deliveries' }).waitFor();
  expect(await page.getByLabel('Job id').inputValue()).toBe(jobId);
  const failing = await reloadUntil('failing attempts', async () => {
    const s = await statuses();
    return s.length >= 2 && s.every((x) => x === 'failed') ? s : undefined;
  });
  expect(failing.length).toBeLessThan(9);
  expect(await rows().first().locator('td:nth-child(4)').innerText()).toMatch(/^HTTP 500 · \d+ ms\nhttp_status$/);
  expect(await rows().first().locator('td:nth-child(5)').innerText()).toMatch(/UTC$/); // the next attempt's time
  await expectAccessible('deliveries-failing');

  // The job's page tells the truth from the last attempt: retrying, with the next attempt's time.
  expect(await jobEventStatus(jobId, /retrying/)).toMatch(/^Event evt_\w+: retrying: the next attempt is at .+ UTC\.$/);
  await page.goto(`${srv.url}/console/webhooks/deliveries?job_id=${jobId}`);
  await reloadUntil('the dead letter', async () => ((await statuses())[0] === 'dead lettered' ? true : undefined));
  expect(await statuses()).toEqual(['dead lettered', ...Array(8).fill('failed')]);
  expect(await page.locator('main').innerText()).toContain('Replays left this hour: 10');
  expect(
    await rows()
      .first()
      .getByRole('button', { name: /^Replay/ })
      .count(),
  ).toBe(1);
  await expectAccessible('deliveries');
  expect(await jobEventStatus(jobId, /dead-lettered/)).toMatch(/^Event evt_\w+: dead-lettered at .+ UTC after its last attempt failed\.$/);
});

test('the filters narrow the list: Status "dead lettered" shows the one dead letter', async () => {
  await page.goto(`${srv.url}/console/webhooks/deliveries`);
  await page.getByLabel('Status').selectOption('dead_lettered');
  await page.getByLabel('Job id').fill(jobId);
  await submitWith(page, 'Filter');
  expect(await statuses()).toEqual(['dead lettered']);
});

test("the event's page lays the nine attempts against the schedule", async () => {
  await page.goto(`${srv.url}/console/webhooks/deliveries?job_id=${jobId}`);
  const eventId = (await rows().first().locator('td:nth-child(6)').innerText()).trim();
  await rows().first().getByRole('link', { name: eventId }).click();
  await page.getByRole('heading', { level: 1, name: `Event ${eventId}` }).waitFor();
  const attempts = page.locator('.timeline li');
  expect(await attempts.count()).toBe(9);
  expect(await attempts.last().innerText()).toContain('dead lettered · HTTP 500');
  const payload = JSON.parse(await page.locator('pre.payload').innerText());
  expect(payload).toMatchObject({ type: 'job.completed' });
  expect(JSON.stringify(payload)).toContain(jobId);
  await expectAccessible('event');
});

test('with the receiver answering 200, "Replay" delivers the event and one replay fewer is left this hour', async () => {
  answer = 200;
  const before = receiver.requests.length;
  await page.goto(`${srv.url}/console/webhooks/deliveries?job_id=${jobId}`);
  await submitWithin(rows().first(), `Replay event ${(await rows().first().locator('td:nth-child(6)').innerText()).trim()}`);
  await page.getByRole('heading', { level: 1, name: 'Webhook deliveries' }).waitFor();
  expect(await page.locator('main').innerText()).toContain('Replays left this hour: 9');
  await reloadUntil('the replay to succeed', async () => ((await statuses())[0] === 'succeeded' ? true : undefined));
  expect(await rows().first().locator('td:nth-child(2)').innerText()).toBe('1 · Replay 1');
  expect(await rows().first().locator('td:nth-child(4)').innerText()).toMatch(/^HTTP 200 · \d+ ms$/);
  // The dead letter has been replayed: neither run offers "Replay" now.
  expect(await page.getByRole('button', { name: /^Replay/ }).count()).toBe(0);
  expect(receiver.requests.length).toBe(before + 1);
  await expectAccessible('deliveries-replayed');
  expect(await jobEventStatus(jobId, /delivered/)).toMatch(/^Event evt_\w+: delivered by replay 1 at .+ UTC\.$/);
});

test('"Send test event" delivers a signed job.completed of a free test job; its page and its job\'s say delivered', async () => {
  const before = receiver.requests.length;
  await page.goto(`${srv.url}/console/webhooks`);
  await submitWith(page, 'Send test event');
  const heading = page.getByRole('heading', { level: 1, name: /^Event evt_/ });
  await heading.waitFor();
  const eventId = (await heading.innerText()).replace('Event ', '').trim();
  const flash = (await page.getByRole('status').innerText()).trim();
  const testJobId = /test job (job_\w+)/.exec(flash)?.[1] ?? '';
  expect(flash).toBe(
    `Test event sent: a signed job.completed of test job ${testJobId} (no people, no credits) is on its way to ${receiver.url}/console-hooks; its attempts appear below as they are made.`,
  );
  const [received] = (await receiver.waitForRequests(before + 1)).slice(before);
  expect(received.headers['webhook-id']).toBe(eventId);
  const signedAt = Number(received.headers['webhook-timestamp']);
  expect(verifySignature(signingSecret, eventId, signedAt, received.body, String(received.headers['webhook-signature']))).toBe(true);
  expect(JSON.parse(received.body)).toMatchObject({
    type: 'job.completed',
    id: eventId,
    data: { job_id: testJobId, status: 'completed', counts: { requested: 0, delivered: 0 } },
  });
  await reloadUntil('the test event delivered', async () => ((await page.locator('.timeline li.succeeded').count()) === 1 ? true : undefined));
  await expectAccessible('event-test');
  expect(await jobEventStatus(testJobId, /delivered/)).toMatch(/^Event evt_\w+: delivered at .+ UTC\.$/);
  // In the jobs list the test job is marked as one and names the person who sent it.
  await page.goto(`${srv.url}/console/jobs`);
  const cells = await reloadUntil('the test job in the jobs list', async () => {
    const row = page.getByRole('row').filter({ hasText: testJobId });
    return (await row.count()) === 1 ? row.getByRole('cell').allInnerTexts() : undefined;
  });
  expect(cells[0]).toBe(`${testJobId}\nTest event`);
  expect(cells[1].split('\n')).toEqual([adminEmail, expect.stringMatching(/^user:usr_\w+$/)]);
});

test('"Rotate secret" shows the successor once and the rotation under way', async () => {
  await page.goto(`${srv.url}/console/webhooks`);
  await submitWith(page, 'Rotate secret');
  await page.getByRole('heading', { level: 1, name: 'Your new signing secret' }).waitFor();
  const secret = (await page.locator('code#new-secret').innerText()).trim();
  expect(secret).toMatch(/^whsec_/);
  await page.getByRole('link', { name: 'Back to Webhooks' }).click();
  expect(await page.locator('main').innerText()).toContain('Under way: the previous secret also signs until');
  expect(await page.content()).not.toContain(secret);
});
