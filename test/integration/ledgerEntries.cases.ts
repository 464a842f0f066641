import type { Config } from '../../core/config';
import { allAuditEvents, recordAuditEvent } from '../../core/audit/auditLog';
import { charge, fundingState, grantCredits, LedgerHeads, setBudget } from '../../core/credits/credits';
import { seedConsoleOrganization } from '../../bench/consoleSeed';
import { EXPORT_ROWS_PER_READ } from '../../core/csvExport';
import type { AuditStores } from '../../core/audit/auditLog';
import type { CreditStores } from '../../core/credits/store';
import { ChainHeads } from '../../core/credits/chain';
import { allLedgerEntries, listLedgerEntries, shownFunding, MAX_SCANNED_PER_PAGE, type LedgerEntryView } from '../../core/credits/ledgerEntries';
import { openTestStore, type TestStore } from '../support/testStore';
import { createTenant, type TestTenant } from '../support/fixtures';
import { testConfig } from '../support/testConfig';
import { purposeKeysOf } from '../../core/crypto/purposeKeys';

// The ledger as an organization's people read it: grants and charges, newest first, filtered and paged or exported whole.
let config: Config;
let a: TestTenant;
let b: TestTenant;
let store: TestStore;

beforeAll(async () => {
  config = testConfig();
  store = await openTestStore(config);
  a = await createTenant({ credits: 100 });
  b = await createTenant({ credits: 10 });
  await setBudget({ stores: store.stores, now: Date.now }, { orgId: a.orgId, amount: 90 });
  for (let i = 0; i < 5; i++)
    await charge(
      { stores: store.stores, now: Date.now },
      {
        orgId: a.orgId,
        familyId: a.familyId,
        operation: i % 2 ? 'profiles.unlock' : 'candidates.search',
        amount: i + 1,
        chargeKey: `ledger-test:${a.orgId}:${i}`,
      },
    );
  await grantCredits({ stores: store.stores, now: Date.now }, a.orgId, 7);
  await charge(
    { stores: store.stores, now: Date.now },
    { orgId: b.orgId, familyId: b.familyId, operation: 'profiles.unlock', amount: 2, chargeKey: `ledger-test:${b.orgId}` },
  );
});
afterAll(async () => store.close());

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

test('pages hold every grant and charge once, newest first, with the balance after each; down to the opening balance; budget entries are left out', async () => {
  const seen: LedgerEntryView[] = [];
  let cursor: string | undefined;
  do {
    const page = await listLedgerEntries(store.stores, purposeKeysOf(config), a.orgId, {}, { limit: 3, cursor });
    seen.push(...page.data);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  expect(seen.map((e) => [e.kind, e.amount])).toEqual([
    ['grant', 7],
    ['charge', 5],
    ['charge', 4],
    ['charge', 3],
    ['charge', 2],
    ['charge', 1],
    ['opening', 100],
  ]);
  expect(seen[0].balance_after).toBe(100 - 15 + 7);
  expect(new Set(seen.map((e) => e.receipt_id)).size).toBe(seen.length);
});

test('filters by operation, key family and time; another organization sees none of it', async () => {
  const unlocks = await listLedgerEntries(store.stores, purposeKeysOf(config), a.orgId, { operation: 'profiles.unlock' });
  expect(unlocks.data.map((e) => e.amount)).toEqual([4, 2]);
  expect((await listLedgerEntries(store.stores, purposeKeysOf(config), a.orgId, { familyId: a.familyId })).data).toHaveLength(5);
  expect((await listLedgerEntries(store.stores, purposeKeysOf(config), a.orgId, { from: new Date(Date.now() + 60_000) })).data).toEqual([]);
  const other = await listLedgerEntries(store.stores, purposeKeysOf(config), b.orgId, {});
  expect(other.data.every((e) => !unlocks.data.some((u) => u.receipt_id === e.receipt_id))).toBe(true);
});

test('a cursor of another filter is invalid_cursor', async () => {
  const page = await listLedgerEntries(store.stores, purposeKeysOf(config), a.orgId, {}, { limit: 1 });
  await expect(
    listLedgerEntries(store.stores, purposeKeysOf(config), a.orgId, { operation: 'profiles.unlock' }, { cursor: page.next_cursor ?? '' }),
  ).rejects.toMatchObject({
    code: 'invalid_cursor',
    status: 400,
  });
});

test('the export yields what the pages hold, in the same order', async () => {
  const all = await collect(allLedgerEntries(store.stores, a.orgId, { operation: 'candidates.search' }));
  expect(all).toEqual((await listLedgerEntries(store.stores, purposeKeysOf(config), a.orgId, { operation: 'candidates.search' })).data);
  expect(all.map((e) => e.amount)).toEqual([5, 3, 1]);
});

test('the audit export yields the filtered entries newest first', async () => {
  const t = Date.parse('2026-07-01T00:00:00Z');
  for (let i = 0; i < 4; i++) {
    await recordAuditEvent(store.stores, {
      orgId: b.orgId,
      actor: i % 2 ? 'operator' : `key:${b.keyId}`,
      action: 'budget.set',
      target: b.orgId,
      after: { budget: i },
      now: new Date(t + i * 1000),
    });
  }
  const byOperator = await collect(allAuditEvents(store.stores, b.orgId, { actor: 'operator' }));
  expect(byOperator.map((e) => e.after)).toEqual([{ budget: 3 }, { budget: 1 }]);
});

test('a page looks at a bounded number of entries: a filter that matches rarely answers a short page and a cursor that carries on to the end', async () => {
  const seeded = await seedConsoleOrganization(config, store.stores, {
    keys: 1,
    people: 1,
    ledgerEntries: MAX_SCANNED_PER_PAGE + 400,
    auditEntries: 0,
    deliveryAttempts: 0,
    jobs: 0,
  });
  const first = await listLedgerEntries(store.stores, purposeKeysOf(config), seeded.orgId, { operation: 'whoami' }, { limit: 10 });
  expect(first.data).toEqual([]);
  expect(first.next_cursor).not.toBeNull();
  const second = await listLedgerEntries(store.stores, purposeKeysOf(config), seeded.orgId, { operation: 'whoami' }, { limit: 10, cursor: first.next_cursor! });
  expect(second).toEqual({ data: [], next_cursor: null });

  const unlocks = await listLedgerEntries(store.stores, purposeKeysOf(config), seeded.orgId, { operation: 'profiles.unlock' }, { limit: 50 });
  expect(unlocks.data).toHaveLength(50);
  expect(unlocks.data.every((e) => e.operation === 'profiles.unlock')).toBe(true);
  const balances = unlocks.data.map((e) => e.balance_after);
  expect(balances).toEqual([...balances].sort((x, y) => x - y));
  // "To" is found by a binary search over the chain: the newest entry before it comes first.
  const cut = new Date(Date.parse(unlocks.data[10].time) + 1);
  expect((await listLedgerEntries(store.stores, purposeKeysOf(config), seeded.orgId, { operation: 'profiles.unlock', to: cut }, { limit: 1 })).data[0]).toEqual(
    unlocks.data[10],
  );
});

test('a page starts at the head whether the mirror names it, lags far behind it or the app learned it, and learns the head it found', async () => {
  // Bulk-seeded entries leave the organization's mirror at the grant before them.
  const seeded = await seedConsoleOrganization(config, store.stores, { keys: 1, people: 1, ledgerEntries: 300, auditEntries: 0, deliveryAttempts: 0, jobs: 0 });
  const keys = purposeKeysOf(config);
  const heads = new ChainHeads();
  const newest = await store.stores.credits.newestLedgerEntryOfOrg(seeded.orgId);
  const cold = await listLedgerEntries(store.stores, keys, seeded.orgId, {}, { limit: 5 }, heads);
  expect(cold.data.map((e) => e.receipt_id)[0]).toBe(newest!.receiptId);
  expect(cold.data).toHaveLength(5);
  expect(heads.known(seeded.orgId)).toBe(newest!.seq);
  expect(await listLedgerEntries(store.stores, keys, seeded.orgId, {}, { limit: 5 }, heads)).toEqual(cold);
  await grantCredits({ stores: store.stores, now: Date.now }, seeded.orgId, 3);
  const after = await listLedgerEntries(store.stores, keys, seeded.orgId, {}, { limit: 5 }, heads);
  expect(after.data[0]).toMatchObject({ kind: 'grant', amount: 3 });
  expect(after.data.slice(1)).toEqual(cold.data.slice(0, 4));
  expect(heads.known(seeded.orgId)).toBe(newest!.seq + 1);
  // The next page carries on below the first, whichever way the head was found.
  const next = await listLedgerEntries(store.stores, keys, seeded.orgId, {}, { limit: 5, cursor: after.next_cursor! }, heads);
  expect(next.data[0]).toEqual(cold.data[4]);
});

test('the funding people are shown is that of the head, whether the mirror names the head or lags far behind it', async () => {
  const seeded = await seedConsoleOrganization(config, store.stores, { keys: 1, people: 1, ledgerEntries: 40, auditEntries: 0, deliveryAttempts: 0, jobs: 0 });
  const heads = new LedgerHeads();
  for (const orgId of [a.orgId, seeded.orgId]) {
    const expected = await fundingState({ stores: store.stores, now: Date.now }, orgId);
    expect(await shownFunding({ stores: store.stores, now: Date.now, ledgerHeads: heads }, orgId)).toEqual(expected);
    expect(await shownFunding({ stores: store.stores, now: Date.now, ledgerHeads: heads }, orgId)).toEqual(expected);
  }
  const newest = await store.stores.credits.newestLedgerEntryOfOrg(seeded.orgId);
  expect((await shownFunding({ stores: store.stores, now: Date.now }, seeded.orgId)).creditBalance).toBe(newest!.balanceAfter);
});

test('exports read the store a short window at a time, wider while a filter the store applies matches few, and yield every entry in order', async () => {
  const entries = 3 * EXPORT_ROWS_PER_READ + 30;
  const seeded = await seedConsoleOrganization(config, store.stores, {
    keys: 1,
    people: 1,
    ledgerEntries: entries,
    auditEntries: entries,
    deliveryAttempts: 0,
    jobs: 0,
  });
  const asked: number[] = [];
  const audit: AuditStores = {
    audit: {
      ...store.stores.audit,
      auditEventsByIds: (orgId, ids, match) => {
        asked.push(ids.length);
        return store.stores.audit.auditEventsByIds(orgId, ids, match);
      },
    },
  };
  // The console's export pace is awaited before each read, with the read's size.
  const turns: number[] = [];
  const turn = async (n: number) => void turns.push(n);
  const all = await collect(allAuditEvents(audit, seeded.orgId, {}, turn));
  expect(turns).toEqual(asked);
  expect(all.map((e) => e.event_id)).toEqual(Array.from({ length: entries }, (_, i) => `aud_${seeded.orgId.replace(/^org_/, '')}_${entries - i}`));
  expect(Math.max(...asked)).toBe(EXPORT_ROWS_PER_READ);

  // The seed alternates two actions: after a first read that matched half, the next ask twice as many numbers.
  asked.length = 0;
  const capSets = await collect(allAuditEvents(audit, seeded.orgId, { action: 'limit.cap_set' }));
  expect(capSets.map((e) => e.action)).toEqual(Array(Math.ceil(entries / 2)).fill('limit.cap_set'));
  expect(asked.slice(0, 2)).toEqual([EXPORT_ROWS_PER_READ, 2 * EXPORT_ROWS_PER_READ]);

  const windows: number[] = [];
  const credits: CreditStores = {
    ...store.stores,
    credits: {
      ...store.stores.credits,
      ledgerWindow: (orgId, top, size) => {
        windows.push(size);
        return store.stores.credits.ledgerWindow(orgId, top, size);
      },
    },
  };
  turns.length = 0;
  const ledger = await collect(allLedgerEntries(credits, seeded.orgId, {}, turn));
  expect(turns.reduce((x, y) => x + y, 0)).toBe(entries + 2);
  expect(ledger.map((e) => e.kind)).toEqual([...Array(entries).fill('charge'), 'grant', 'opening']);
  const charges = ledger.slice(0, entries).map((e) => e.balance_after);
  expect(charges).toEqual([...charges].sort((x, y) => x - y));
  expect(Math.max(...windows)).toBe(EXPORT_ROWS_PER_READ);
});
