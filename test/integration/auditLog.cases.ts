import mongoose from 'mongoose';
import type { Config } from '../../core/config';
import { allAuditEvents, recordAuditEvent, listAuditEvents } from '../../core/audit/auditLog';
import { createMaintenanceActivities } from '../../activities/maintenance';
import type { Stores } from '../../core/deps';
import { openTestStore, type TestStore } from '../support/testStore';
import { createTenant } from '../support/fixtures';
import { testConfig } from '../support/testConfig';
import { purposeKeysOf } from '../../core/crypto/purposeKeys';

// The audit log's store: append, page newest first per organization, retention as the only delete.
let config: Config;
let store: TestStore;
let stores: Stores;

beforeAll(async () => {
  config = testConfig();
  store = await openTestStore(config);
  stores = store.stores;
});
afterAll(async () => store.close());

/** The ids of the organization's entries, read back through the log. */
async function entryIds(orgId: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const e of allAuditEvents(stores, orgId)) ids.push(e.event_id);
  return ids;
}

const DAY = 24 * 3600_000;

test('entries page newest first, filter by action and actor, and stay inside their organization', async () => {
  const [a, b] = [await createTenant(), await createTenant()];
  const base = Date.parse('2026-06-01T00:00:00Z');
  // Several entries share one instant: the id breaks the tie and no entry is skipped or repeated.
  for (let i = 0; i < 7; i++) {
    await recordAuditEvent(stores, {
      orgId: a.orgId,
      actor: i % 2 ? 'operator' : `key:${a.keyId}`,
      action: i % 3 ? 'budget.set' : 'credits.granted',
      target: a.orgId,
      after: { budget: i, amount: i },
      now: new Date(base + Math.floor(i / 3) * 1000),
    });
  }
  await recordAuditEvent(stores, { now: new Date(), orgId: b.orgId, actor: 'operator', action: 'credits.granted', target: b.orgId, after: { amount: 1 } });

  const seen: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await listAuditEvents(stores, purposeKeysOf(config), a.orgId, { limit: 3, cursor });
    seen.push(...page.data.map((e) => e.event_id));
    for (let i = 1; i < page.data.length; i++) expect(page.data[i - 1].time >= page.data[i].time).toBe(true);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  expect(seen).toHaveLength(7);
  expect(new Set(seen).size).toBe(7);

  const grants = await listAuditEvents(stores, purposeKeysOf(config), a.orgId, { action: 'credits.granted' });
  expect(grants.data.map((e) => e.after)).toEqual([{ amount: 6 }, { amount: 3 }, { amount: 0 }]);
  const operator = await listAuditEvents(stores, purposeKeysOf(config), a.orgId, { actor: 'operator' });
  expect(operator.data).toHaveLength(3);
  expect(operator.data.every((e) => e.actor === 'operator')).toBe(true);
  // A cursor of another filter is not a page of this one.
  const firstPage = await listAuditEvents(stores, purposeKeysOf(config), a.orgId, { limit: 1 });
  await expect(listAuditEvents(stores, purposeKeysOf(config), a.orgId, { actor: 'operator', cursor: firstPage.next_cursor! })).rejects.toMatchObject({
    code: 'invalid_cursor',
  });
  expect((await listAuditEvents(stores, purposeKeysOf(config), b.orgId)).data).toHaveLength(1);
});

test('a forged, altered or foreign cursor is invalid_cursor before the log is read: no page scans numbers it never handed out', async () => {
  const [a, b] = [await createTenant(), await createTenant()];
  for (const t of [a, b]) {
    for (let i = 0; i < 3; i++)
      await recordAuditEvent(stores, { now: new Date(), orgId: t.orgId, actor: 'operator', action: 'budget.set', target: t.orgId, after: { budget: i } });
  }
  const own = (await listAuditEvents(stores, purposeKeysOf(config), a.orgId, { action: 'budget.set', limit: 1 })).next_cursor!;
  const foreign = (await listAuditEvents(stores, purposeKeysOf(config), b.orgId, { action: 'budget.set', limit: 1 })).next_cursor!;
  expect((await listAuditEvents(stores, purposeKeysOf(config), a.orgId, { action: 'budget.set', limit: 1, cursor: own })).data).toHaveLength(1);
  // The position a page would start from, far above the log's head: each number below it is a read.
  const bytes = Buffer.from(own, 'base64url');
  const altered = Buffer.concat([bytes.subarray(0, 16), Buffer.from('{"below":900000000}')]).toString('base64url');
  const unsigned = Buffer.from(JSON.stringify({ s: 'audit-events:budget.set:', p: { below: 900_000_000 } })).toString('base64url');

  const reads: string[] = [];
  mongoose.set('debug', (collection: string, method: string) => {
    if (/audit/.test(collection)) reads.push(`${collection}.${method}`);
  });
  try {
    for (const cursor of [altered, unsigned, foreign]) {
      await expect(listAuditEvents(stores, purposeKeysOf(config), a.orgId, { action: 'budget.set', cursor })).rejects.toMatchObject({
        code: 'invalid_cursor',
        status: 400,
      });
    }
  } finally {
    mongoose.set('debug', false);
  }
  expect(reads).toEqual([]);
});

test('the maintenance run deletes entries older than AUDIT_RETENTION_DAYS and only those', async () => {
  const t = await createTenant();
  const now = Date.now();
  const old = await recordAuditEvent(stores, { orgId: t.orgId, actor: 'operator', action: 'credits.granted', target: t.orgId, now: new Date(now - 11 * DAY) });
  const kept = await recordAuditEvent(stores, { orgId: t.orgId, actor: 'operator', action: 'credits.granted', target: t.orgId, now: new Date(now - 9 * DAY) });
  const purged = await createMaintenanceActivities({ config: { ...config, auditRetentionDays: 10 }, now: Date.now, stores }).purgeExpiredRecords();
  expect(purged.auditEvents).toBeGreaterThanOrEqual(1);
  const left = await entryIds(t.orgId);
  expect(left).not.toContain(old.event_id);
  expect(left).toContain(kept.event_id);
  // The default (400 days) keeps both of a year-old and a fresh entry.
  const yearOld = await recordAuditEvent(stores, {
    orgId: t.orgId,
    actor: 'operator',
    action: 'credits.granted',
    target: t.orgId,
    now: new Date(now - 365 * DAY),
  });
  await createMaintenanceActivities({ config, now: Date.now, stores }).purgeExpiredRecords();
  expect(config.auditRetentionDays).toBe(400);
  expect(await entryIds(t.orgId)).toContain(yearOld.event_id);
});
