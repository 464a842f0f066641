import { newId } from '../../core/ids';
import { listDeliveries, recordAttempt, type AttemptRecord } from '../../core/webhooks/webhookDeliveries';
import { webhookHealthOf } from '../../core/webhooks/webhookHealth';
import { purgeWebhookHistory } from '../../core/maintenance/purgeRecordsWithoutExpiry';
import { consoleSession } from '../support/consoleWebhooks';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startSignInApi } from '../support/signInApi';
import type { TestApi } from '../support/testApi';

/**
 * Delivery attempts are numbered per workspace and read by id (core/webhooks/deliveryNumbering.ts):
 * pages newest first across records from before the numbering, holes in the numbers, a scan
 * budget for rare filters, and the overview's health figures kept as attempts are recorded.
 */
let srv: TestApi;
beforeAll(async () => {
  srv = await startSignInApi();
});
afterAll(async () => {
  await srv?.close();
});

const HOUR = 3600_000;

function attempt(t: TestTenant, eventId: string, n: number, status: AttemptRecord['status'], at: Date, endpointId = 'we_numbering'): AttemptRecord {
  return {
    eventId,
    replay: 0,
    attempt: n,
    endpointId,
    orgId: t.orgId,
    workspaceId: t.workspaceId,
    jobId: `job_${eventId}`,
    status,
    responseStatus: status === 'succeeded' ? 200 : 500,
    errorCode: status === 'succeeded' ? null : 'http_status',
    durationMs: 5,
    scheduledAt: at,
    attemptedAt: at,
    nextAttemptAt: null,
  };
}

/** Every page of the list, following cursors. */
async function allPages(workspaceId: string, filter: { status?: AttemptRecord['status']; endpoint_id?: string }, limit: number) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await listDeliveries(srv.deps.stores, srv.deps.purposeKeys, workspaceId, { ...filter, limit, cursor });
    pages.push(page.data.map((d) => d.delivery_id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor && pages.length < 100);
  return pages;
}

test('records from before the numbering are listed after the numbered ones, newest first, through the same cursors', async () => {
  const t = await createTenant();
  const base = Date.now() - 10 * HOUR;
  // Three records written before the numbering: no number, random ids.
  const legacy = [0, 1, 2].map((i) => ({
    _id: newId('dlv'),
    ...attempt(t, `evt_legacy${i}`, 1, i === 1 ? 'failed' : 'succeeded', new Date(base + i * 1000)),
    createdAt: new Date(base + i * 1000),
    updatedAt: new Date(base + i * 1000),
  }));
  await srv.deps.stores.webhooks.deliveries.insertDeliveryRecords(legacy);
  const numbered = [];
  for (let i = 0; i < 5; i++)
    numbered.push(await recordAttempt(srv.deps.stores, attempt(t, `evt_new${i}`, 1, i % 2 ? 'failed' : 'succeeded', new Date(base + HOUR + i * 1000))));
  expect(numbered.map((d) => d.seq)).toEqual([1, 2, 3, 4, 5]);
  expect(numbered[0]._id).toBe(`dlv_${t.workspaceId.replace(/^ws_/, '')}_1`);
  // The first number noted that this workspace holds older records.
  expect((await srv.deps.stores.webhooks.deliveries.deliveryHead(t.workspaceId)).legacy).toBe(true);

  const newestFirst = [...numbered.map((d) => d._id).reverse(), legacy[2]._id, legacy[1]._id, legacy[0]._id];
  for (const limit of [1, 2, 3, 5, 8, 20]) {
    const pages = await allPages(t.workspaceId, {}, limit);
    expect(pages.flat()).toEqual(newestFirst);
    expect(pages.every((p) => p.length <= limit)).toBe(true);
  }
  const failed = await allPages(t.workspaceId, { status: 'failed' }, 1);
  expect(failed.flat()).toEqual([numbered[3]._id, numbered[1]._id, legacy[1]._id]);
});

test('a workspace numbered from its first attempt never reads by a sorted query, and steps over holes', async () => {
  const t = await createTenant();
  const at = new Date();
  const first = await recordAttempt(srv.deps.stores, attempt(t, 'evt_h0', 1, 'succeeded', at));
  expect((await srv.deps.stores.webhooks.deliveries.deliveryHead(t.workspaceId)).legacy).toBe(false);
  // A retried write of the same attempt answers the first record and takes no row.
  expect((await recordAttempt(srv.deps.stores, attempt(t, 'evt_h0', 1, 'succeeded', at)))._id).toBe(first._id);
  const second = await recordAttempt(srv.deps.stores, attempt(t, 'evt_h1', 1, 'succeeded', at));
  expect(second.seq).toBeGreaterThan(first.seq!);
  // 5,000 numbers taken and never written (far more than a page looks at): a page reads at most
  // its budget, answers what it found with a cursor to go on, and the walk reaches the older ones.
  await srv.deps.stores.webhooks.deliveries.setDeliveryHead(t.workspaceId, second.seq! + 5000, false);
  const third = await recordAttempt(srv.deps.stores, attempt(t, 'evt_h2', 1, 'succeeded', at));
  const pages = await allPages(t.workspaceId, {}, 20);
  expect(pages.flat()).toEqual([third._id, second._id, first._id]);
  expect(pages.length).toBeGreaterThan(1);
  expect(pages[0]).toEqual([third._id]);
  // No stored record is pending: that filter answers at once, without walking the numbers.
  expect(await listDeliveries(srv.deps.stores, srv.deps.purposeKeys, t.workspaceId, { limit: 20, status: 'pending' })).toEqual({ data: [], next_cursor: null });
  const lastPage = await listDeliveries(srv.deps.stores, srv.deps.purposeKeys, t.workspaceId, { limit: 20 });
  expect(lastPage.next_cursor).not.toBeNull();
  // Another filter's cursor is refused.
  await expect(
    listDeliveries(srv.deps.stores, srv.deps.purposeKeys, t.workspaceId, { limit: 20, status: 'failed', cursor: lastPage.next_cursor! }),
  ).rejects.toMatchObject({
    code: 'invalid_cursor',
    status: 400,
  });
});

test('the health figures are counted as attempts are recorded, over the last 7 days, and shown on the overview', async () => {
  const t = await createTenant();
  const now = new Date();
  const recent = new Date(now.getTime() - 2 * HOUR);
  const old = new Date(now.getTime() - 9 * 24 * HOUR);
  await recordAttempt(srv.deps.stores, attempt(t, 'evt_old', 1, 'failed', old));
  await recordAttempt(srv.deps.stores, attempt(t, 'evt_a', 1, 'failed', recent));
  await recordAttempt(srv.deps.stores, attempt(t, 'evt_a', 2, 'failed', recent));
  await recordAttempt(srv.deps.stores, attempt(t, 'evt_b', 9, 'dead_lettered', recent));
  // The same attempt recorded twice counts once.
  await recordAttempt(srv.deps.stores, attempt(t, 'evt_a', 2, 'failed', recent));
  const last = await recordAttempt(srv.deps.stores, attempt(t, 'evt_c', 1, 'succeeded', new Date(now.getTime() - HOUR)));

  const health = await webhookHealthOf(srv.deps.stores, t.workspaceId, now);
  expect(health).toMatchObject({ failedAttempts: 2, deadLetters: 1 });
  expect(health.lastAttempt?.delivery_id).toBe(last._id);

  const admin = await consoleSession(srv, t, 'admin');
  const page = await admin.get('/console/overview');
  expect(page.status).toBe(200);
  expect(page.text).toMatch(/Failed attempts over 7 days<\/dt>\s*<dd>2<\/dd>/);
  expect(page.text).toMatch(/Dead letters over 7 days<\/dt>\s*<dd>1<\/dd>/);
  expect(page.text).toMatch(/Last attempt<\/dt>\s*<dd>\s*succeeded \(HTTP 200\)/);

  // The maintenance run deletes the counters the window has left, and keeps the others.
  await purgeWebhookHistory(srv.deps.stores, now);
  const days = await srv.deps.stores.webhooks.deliveries.healthDaysOf(t.workspaceId);
  expect(days.map((d) => d.getTime()).sort()).toEqual([Math.floor(recent.getTime() / (24 * HOUR)) * 24 * HOUR]);
});
