import mongoose from 'mongoose';
import { auditEventId, MAX_SCAN, recordAuditEvent } from '../../core/audit/auditLog';
import { AUDIT_PAGE_SCAN } from '../../api/console/pages/auditPage';
import { EXPORTS_AT_ONCE, LIST_PAGE_SLOTS, takeExportSlot, takeReadSlot, type ReadSlot } from '../../core/limits/consoleReadSlots';
import { StoreAdmission, requestScopeKey } from '../../core/limits/requestAdmission';
import { windowSecond, windowSlotIds } from '../../core/limits/strictWindow';
import { LIST_PAGE_BURST, LIST_PAGES_PER_SECOND } from '../../api/console/consoleReadsPace';
import { consoleSession, type ConsoleSession } from '../support/consoleWebhooks';
import { createTenant, type TestTenant } from '../support/fixtures';
import { eventually } from '../support/eventually';
import { api } from '../support/http';
import { expectProblemResponse } from '../support/problems';
import { startSignInApi } from '../support/signInApi';
import type { TestApi } from '../support/testApi';
import { testLogger } from '../support/capturedLogs';
import { TestClock } from '../support/testClock';

/**
 * Console reads are held to the organization's limits like their /v1 twins: list pages take the
 * organization's request rate and in-flight slots, downloads also one of its two export slots
 * (shared through the store by every replica), and a cursor is one the list signed or a 400
 * before anything is read.
 */
let srv: TestApi;
/** Another replica's admission: what it takes is in the store, as the API's own would be. */
let replica: StoreAdmission;

beforeAll(async () => {
  srv = await startSignInApi();
  replica = new StoreAdmission(srv.deps.stores.limits, Date.now, testLogger());
});
afterAll(async () => {
  await replica?.close();
  await srv?.close();
});

async function tenantWithLog(entries: number): Promise<{ tenant: TestTenant; admin: ConsoleSession }> {
  const tenant = await createTenant();
  for (let i = 0; i < entries; i++) {
    await recordAuditEvent(srv.deps.stores, {
      now: new Date(),
      orgId: tenant.orgId,
      actor: 'operator',
      action: 'budget.set',
      target: tenant.orgId,
      after: { budget: i },
    });
  }
  return { tenant, admin: await consoleSession(srv, tenant, 'admin') };
}

/** The audit store's commands while `work` runs. */
function auditReadsDuring(work: () => Promise<void>): Promise<string[]> {
  return commandsDuring(/audit/, work);
}

/** The store commands on collections matching `collections` while `work` runs. */
async function commandsDuring(collections: RegExp, work: () => Promise<void>): Promise<string[]> {
  const reads: string[] = [];
  mongoose.set('debug', (collection: string, method: string) => {
    if (collections.test(collection)) reads.push(`${collection}.${method}`);
  });
  try {
    await work();
  } finally {
    mongoose.set('debug', false);
  }
  return reads;
}

describe('cursors', () => {
  test('a forged or tampered audit cursor is a 400 page in the console and 400 invalid_cursor on /v1, with no read of the log', async () => {
    const { tenant, admin } = await tenantWithLog(3);
    const first = await admin.get('/console/audit?action=budget.set');
    expect(first.status).toBe(200);
    const next = /href="\/console\/audit\?action=budget\.set&amp;cursor=([A-Za-z0-9_-]+)"/.exec(first.text);
    const own = (await api(srv.url, 'GET', '/v1/audit-events?action=budget.set&limit=1', { key: tenant.key })).json.next_cursor as string;
    expect(own).toEqual(expect.any(String));
    // A real cursor's MAC over a position far above the log's head, and the unsigned form cursors had.
    const tampered = Buffer.concat([Buffer.from(own, 'base64url').subarray(0, 16), Buffer.from('{"below":900000000}')]).toString('base64url');
    const forged = Buffer.from(JSON.stringify({ s: 'audit-events:budget.set:', p: { below: 900_000_000 } })).toString('base64url');

    const reads = await auditReadsDuring(async () => {
      for (const cursor of [tampered, forged]) {
        const page = await admin.get(`/console/audit?action=budget.set&cursor=${cursor}`);
        expect(page.status).toBe(400);
        expect(page.text).toContain('This page link is no longer valid for these filters');
        expectProblemResponse(await api(srv.url, 'GET', `/v1/audit-events?action=budget.set&cursor=${cursor}`, { key: tenant.key }), 400, 'invalid_cursor');
      }
    });
    expect(reads).toEqual([]);
    // The 50-row page has no next page here; the /v1 cursor still pages on.
    expect(next).toBeNull();
    expect((await api(srv.url, 'GET', `/v1/audit-events?action=budget.set&limit=1&cursor=${own}`, { key: tenant.key })).json.data).toHaveLength(1);
  });
});

/** How many entry ids each read of the audit log asked for while `work` runs. */
async function auditIdsAskedDuring(work: () => Promise<void>): Promise<number[]> {
  const asked: number[] = [];
  mongoose.set('debug', (collection: string, _method: string, query: { _id?: { $in?: unknown[] } }) => {
    if (/audit_events/.test(collection) && query?._id?.$in) asked.push(query._id.$in.length);
  });
  try {
    await work();
  } finally {
    mongoose.set('debug', false);
  }
  return asked;
}

describe('the worst-case audit page', () => {
  test(`a filtered console page looks through at most ${AUDIT_PAGE_SCAN} entry numbers in one read and says so; "Next page" carries on; /v1 looks through up to MAX_SCAN`, async () => {
    const tenant = await createTenant();
    const entries = AUDIT_PAGE_SCAN + 100;
    await srv.deps.stores.audit.insertAuditEvents(
      Array.from({ length: entries }, (_, i) => ({
        _id: auditEventId(tenant.orgId, i + 1),
        orgId: tenant.orgId,
        seq: i + 1,
        time: new Date(),
        actor: 'operator',
        action: 'budget.set',
        target: tenant.orgId,
        before: null,
        after: { budget: i },
        clientAddress: null,
      })),
    );
    await srv.deps.stores.audit.insertAuditHead(tenant.orgId, entries);
    const admin = await consoleSession(srv, tenant, 'admin');

    let first!: Awaited<ReturnType<ConsoleSession['get']>>;
    expect(await auditIdsAskedDuring(async () => void (first = await admin.get('/console/audit?action=key.created')))).toEqual([AUDIT_PAGE_SCAN]);
    expect(first.status).toBe(200);
    expect(first.text).toContain('No entry matches among the most recent ones looked at.');
    expect(first.text).toContain('A page looks through a bounded stretch of the log');
    const next = /href="(\/console\/audit\?action=key\.created&amp;cursor=[A-Za-z0-9_-]+)"/.exec(first.text)?.[1].replace(/&amp;/g, '&');
    expect(next).toEqual(expect.any(String));

    let last!: Awaited<ReturnType<ConsoleSession['get']>>;
    expect(await auditIdsAskedDuring(async () => void (last = await admin.get(next!)))).toEqual([entries - AUDIT_PAGE_SCAN]);
    expect(last.text).toContain('No entry matches.');
    expect(last.text).not.toMatch(/cursor=/);

    expect(MAX_SCAN).toBeGreaterThan(entries);
    const v1 = await auditIdsAskedDuring(async () => {
      expect((await api(srv.url, 'GET', '/v1/audit-events?action=key.created', { key: tenant.key })).json).toEqual({ data: [], next_cursor: null });
    });
    expect(v1.reduce((x, y) => x + y, 0)).toBe(entries);
  });
});

describe('list pages', () => {
  test("past the organization's request rate a list page is the 429 page; a non-list page and another organization's pages still answer", async () => {
    const { tenant, admin } = await tenantWithLog(1);
    const other = await tenantWithLog(1);
    // The organization's window of 25 is full for the next 30 seconds, as its /v1 traffic would fill it.
    const from = windowSecond(Date.now());
    for (let s = from; s < from + 30; s++) {
      const inserts = srv.deps.stores.limits.createSlotInserts();
      await Promise.all(windowSlotIds(requestScopeKey(tenant.orgId), s, 25).map((_id) => inserts.insertOnce({ _id, s })));
    }
    for (const path of [
      '/console/audit',
      '/console/usage',
      '/console/jobs',
      '/console/keys',
      '/console/team',
      '/console/webhooks',
      '/console/webhooks/deliveries',
    ]) {
      const page = await admin.get(path);
      expect({ path, status: page.status }).toEqual({ path, status: 429 });
      expect(page.text).toContain('<h1>Too many requests</h1>');
      expect(page.text).toContain('request rate of 25 per second');
      expect(Number(page.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    const download = await admin.get('/console/audit/download');
    expect(download.status).toBe(429);
    expectProblemResponse(await api(srv.url, 'GET', '/v1/whoami', { key: tenant.key }), 429, 'rate_limited');
    // Limits stays reachable, so an admin can lower a cap while the API's traffic uses the limits up.
    expect((await admin.get('/console/limits')).status).toBe(200);
    expect((await other.admin.get('/console/audit')).status).toBe(200);
  });

  test('with every in-flight slot of the organization held, a list page is the 429 page until one is given back', async () => {
    const { tenant, admin } = await tenantWithLog(1);
    const leases = [];
    for (let k = 0; k < 25; k++) {
      const got = await replica.acquireLease(tenant.orgId, 25, 60_000);
      if (!got.admitted) throw new Error('a free in-flight slot was refused');
      leases.push(got.lease);
    }
    const refused = await admin.get('/console/audit');
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('already has 25 requests in flight');
    replica.releaseLease(leases.pop()!);
    await replica.leaseReleaser.drain();
    expect((await admin.get('/console/audit')).status).toBe(200);
    for (const lease of leases) replica.releaseLease(lease);
    await replica.leaseReleaser.drain();
  });

  test("with the organization's console list slots all held by this replica's own reads, the next list page is refused before the session is read", async () => {
    const { tenant, admin } = await tenantWithLog(1);
    const reading: ReadSlot[] = [];
    for (let i = 0; i < LIST_PAGE_SLOTS.atOnce; i++) reading.push(await takeReadSlot(srv.deps.admission, LIST_PAGE_SLOTS, tenant.orgId));
    // The first refusal reads who is asking (the page with the person's frame); the next ones
    // know the session's organization and read nothing.
    const first = await admin.get('/console/jobs');
    expect(first.status).toBe(429);
    expect(first.text).toContain('Sign out');
    let early: Awaited<ReturnType<typeof admin.get>> | undefined;
    const commands = await commandsDuring(/session|user|organization|admission/, async () => {
      early = await admin.get('/console/jobs');
    });
    expect({ status: early!.status, retryAfter: early!.headers.get('retry-after'), commands }).toEqual({ status: 429, retryAfter: '1', commands: [] });
    expect(early!.text).toContain('<h1>Too many requests</h1>');
    expect(early!.text).toContain(`already has ${LIST_PAGE_SLOTS.atOnce} console lists being read`);
    // Another organization's people are not refused by this one's slots.
    const other = await tenantWithLog(1);
    expect((await other.admin.get('/console/jobs')).status).toBe(200);
    reading.pop()!.release();
    await srv.deps.admission.leaseReleaser.drain();
    expect((await admin.get('/console/jobs')).status).toBe(200);
    for (const slot of reading) slot.release();
    await srv.deps.admission.leaseReleaser.drain();
  });

  test("with the organization's console list slots taken on another replica, a list page is the 429 page and its request window is untouched", async () => {
    const { tenant, admin } = await tenantWithLog(1);
    const reading: ReadSlot[] = [];
    for (let i = 0; i < LIST_PAGE_SLOTS.atOnce; i++) reading.push(await takeReadSlot(replica, LIST_PAGE_SLOTS, tenant.orgId));
    const refused = await admin.get('/console/jobs');
    expect(refused.status).toBe(429);
    expect(refused.text).toContain(`already has ${LIST_PAGE_SLOTS.atOnce} console lists being read`);
    expect(await srv.deps.stores.limits.slotIdsWithPrefix(`w:req:${tenant.orgId}:`)).toHaveLength(0);
    // The API's own traffic is not held to the console's slots.
    expect((await api(srv.url, 'GET', '/v1/whoami', { key: tenant.key })).status).toBe(200);
    reading.pop()!.release();
    await replica.leaseReleaser.drain();
    expect((await admin.get('/console/jobs')).status).toBe(200);
    for (const slot of reading) slot.release();
    await replica.leaseReleaser.drain();
  });
});

describe('exports', () => {
  test(`a third concurrent export of an organization is the 429 page; a finished one gives its slot back`, async () => {
    const { tenant, admin } = await tenantWithLog(5);
    // Sequential downloads each give their slot back when sent.
    for (let i = 0; i < EXPORTS_AT_ONCE + 2; i++) {
      const csv = await admin.get('/console/audit/download');
      expect(csv.status).toBe(200);
      expect(csv.text.split('\r\n').filter(Boolean)).toHaveLength(6);
      expect((await admin.get('/console/usage/ledger.csv')).status).toBe(200);
    }
    // Two exports running on another replica, once the last download here gave its slot back (after its last byte).
    const running: ReadSlot[] = [];
    for (let i = 0; i < EXPORTS_AT_ONCE; i++) {
      running.push(await eventually('a free export slot', () => takeExportSlot(replica, tenant.orgId).catch(() => undefined)));
    }
    for (const path of ['/console/audit/download', '/console/usage/ledger.csv']) {
      const refused = await admin.get(path);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
      expect(refused.text).toContain('<h1>Too many requests</h1>');
      expect(refused.text).toContain(`already has ${EXPORTS_AT_ONCE} downloads running`);
      expect(refused.headers.get('retry-after')).toBe('5');
    }
    // A refused export gave back its request's in-flight slot and read nothing: list pages still answer.
    expect((await admin.get('/console/audit')).status).toBe(200);
    running.pop()!.release();
    await replica.leaseReleaser.drain();
    const csv = await admin.get('/console/audit/download');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    running.pop()!.release();
    await replica.leaseReleaser.drain();
  });
});

describe('pace', () => {
  test(`past a burst of ${LIST_PAGE_BURST} list pages an organization opens ${LIST_PAGES_PER_SECOND} a second on a replica; the refusal reads nothing once its session is known`, async () => {
    const clock = new TestClock();
    // A second app on the file's store whose admission, and so its pace, reads the test's clock.
    const clocked = await startSignInApi(
      { MONGODB_URI: srv.config.mongodbUri },
      { admission: new StoreAdmission(srv.deps.stores.limits, clock.now, testLogger()) },
    );
    try {
      const tenant = await createTenant();
      const admin = await consoleSession(clocked, tenant, 'admin');
      const other = await consoleSession(clocked, await createTenant(), 'admin');
      const statuses: number[] = [];
      for (let i = 0; i < LIST_PAGE_BURST; i++) statuses.push((await admin.get(i % 2 ? '/console/jobs' : '/console/audit')).status);
      expect(statuses).toEqual(Array(LIST_PAGE_BURST).fill(200));
      await clocked.deps.admission.leaseReleaser.drain();
      let refused: Awaited<ReturnType<typeof admin.get>> | undefined;
      const commands = await commandsDuring(/session|user|organization|admission/, async () => {
        refused = await admin.get('/console/jobs');
      });
      expect({ status: refused!.status, retryAfter: refused!.headers.get('retry-after'), commands }).toEqual({ status: 429, retryAfter: '1', commands: [] });
      expect(refused!.text).toContain(`more than ${LIST_PAGES_PER_SECOND} console lists a second`);
      // Pages that are not lists, and another organization's lists, still answer.
      expect((await admin.get('/console/limits')).status).toBe(200);
      expect((await other.get('/console/jobs')).status).toBe(200);
      clock.advance(1000 / LIST_PAGES_PER_SECOND);
      expect((await admin.get('/console/jobs')).status).toBe(200);
      expect((await admin.get('/console/jobs')).status).toBe(429);

      // One page's turn comes back and three ask for it at once: one runs; the others, refused
      // after reading who asked, are answered after the refusal pace (a real timer in the app, so
      // the wall clock measures it), not at once to come straight back.
      clock.advance(1000 / LIST_PAGES_PER_SECOND);
      const sent = Date.now();
      const together = await Promise.all(
        [0, 1, 2].map(async () => {
          const page = await admin.get('/console/jobs');
          return { status: page.status, ms: Date.now() - sent };
        }),
      );
      expect(together.map((t) => t.status).sort()).toEqual([200, 429, 429]);
      expect(together.filter((t) => t.status === 429).every((t) => t.ms >= 900)).toBe(true);
    } finally {
      await clocked.close();
    }
  });
});
