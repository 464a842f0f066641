import {
  checkCapChange,
  checkClear,
  checkRateChange,
  emptySettings,
  applicableOverrides,
  organizationLimits,
  operationRequestsPerSecond,
  standardRequestsPerMinute,
  LimitChangeError,
} from '../../core/limits/limitSettings';
import type { LimitSettingsDoc } from '../../core/limits/limitSettingsRecord';
import { BASELINE_ENTRY, OPERATIONS, OPERATION_REQUESTS_PER_SECOND, type Scope } from '../../core/limits/limitTable';
import { capDecision, MINUTE_MS, type CapEntry } from '../../core/limits/minuteCaps';
import { freeSlotIds, secondsUntilNextWindow, windowSecond, windowSlotId, windowSlotIds, WindowSlotsTakenHere } from '../../core/limits/strictWindow';
import { everySlotHeldHere, freeLeaseSlots, inFlightRetryAfterSeconds, LeaseReleaser, probeOrder, SlotsHeldHere } from '../../core/limits/inFlightLeases';
import { parseRateLimit, rateLimitHeader, rateLimitHeaders, rateLimitPolicyHeader } from '../../core/limits/rateLimitHeaders';
import { condensedLimitEntries, limitEntries, limitEntriesPage, limitEntry } from '../../core/limits/operationalLimits';
import { encodeListCursor } from '../../core/pageCursor';
import { PurposeKeys } from '../../core/crypto/purposeKeys';

const CURSOR_KEY = new PurposeKeys(Buffer.alloc(32, 7));

const ORG: Scope = { type: 'organization', id: 'org_1' };
const APP: Scope = { type: 'application', id: 'app_1' };
const FAM: Scope = { type: 'key_family', id: 'kf_1' };
const KEY: Scope = { type: 'key', id: 'key_1' };
const chain = [ORG, APP, FAM, KEY];

function withOverrides(overrides: Partial<LimitSettingsDoc>): LimitSettingsDoc {
  return { ...emptySettings('org_1'), ...overrides };
}
const cap = (scope: Scope, rpm: number, operation = 'contact_retrieval_jobs.get') => ({
  operation,
  scopeType: scope.type,
  scopeId: scope.id,
  kind: 'cap' as const,
  requestsPerMinute: rpm,
  updatedAt: new Date(),
});
const block = (scope: Scope, operation = 'contact_retrieval_jobs.get') => ({
  operation,
  scopeType: scope.type,
  scopeId: scope.id,
  kind: 'block' as const,
  requestsPerMinute: null,
  updatedAt: new Date(),
});

describe('strict one-second window', () => {
  test('windows are aligned to wall-clock seconds', () => {
    expect(windowSecond(1_732_240_000_999)).toBe(1_732_240_000);
    expect(windowSecond(1_732_240_001_000)).toBe(1_732_240_001);
  });
  test('a window of L has exactly L slots; a given-back slot is free again', () => {
    const all = windowSlotIds('req:org_1', 7, 25);
    expect(all).toHaveLength(25);
    expect(new Set(all).size).toBe(25);
    expect(all[0]).toBe(windowSlotId('req:org_1', 7, 0));
    expect(
      freeSlotIds(
        all,
        all.filter((_, k) => k !== 3),
      ),
    ).toEqual([all[3]]);
    expect(freeSlotIds(all, all)).toEqual([]);
  });
  test('a refusal waits for the next second', () => {
    expect(secondsUntilNextWindow(1000)).toBe(1);
    expect(secondsUntilNextWindow(1999)).toBe(1);
  });
});

describe('in-flight leases', () => {
  test('free slots exist only while fewer than the limit are live; expired leases do not count', () => {
    expect(
      freeLeaseSlots(
        [
          { slot: 0, exp: 500 },
          { slot: 1, exp: 5000 },
        ],
        2,
        1000,
      ),
    ).toEqual([0]);
    expect(
      freeLeaseSlots(
        [
          { slot: 0, exp: 5000 },
          { slot: 1, exp: 5000 },
        ],
        2,
        1000,
      ),
    ).toEqual([]);
    // After the limit was lowered, leases above it still count.
    expect(
      freeLeaseSlots(
        [
          { slot: 5, exp: 5000 },
          { slot: 6, exp: 5000 },
        ],
        2,
        1000,
      ),
    ).toEqual([]);
  });
  test('probes distinct slots below the limit', () => {
    const p = probeOrder(25, 2);
    expect(new Set(p).size).toBe(2);
    expect(p.every((k) => k >= 0 && k < 25)).toBe(true);
    expect(probeOrder(1, 2)).toEqual([0]);
  });
  test('never probes a slot this process knows is taken', () => {
    for (let i = 0; i < 50; i++) {
      const p = probeOrder(5, 2, Math.random, (k) => k !== 1 && k !== 3);
      expect(p.sort()).toEqual([1, 3]);
    }
    expect(probeOrder(3, 2, Math.random, () => true)).toEqual([]);
  });
  test('each free slot is as likely to be probed first, and a slot taken here never is, however few are free', () => {
    const trials = 20_000;
    for (const takenSlots of [new Set([3, 7]), new Set(Array.from({ length: 23 }, (_, k) => k))]) {
      const first = new Map<number, number>();
      // Checked in the loop, asserted once: an expect per trial would cost more than the trials.
      const notTwoDistinct: number[][] = [];
      for (let i = 0; i < trials; i++) {
        const p = probeOrder(25, 2, Math.random, (k) => takenSlots.has(k));
        if (p.length !== 2 || new Set(p).size !== 2) notTwoDistinct.push(p);
        first.set(p[0], (first.get(p[0]) ?? 0) + 1);
      }
      expect(notTwoDistinct).toEqual([]);
      const free = 25 - takenSlots.size;
      expect([...first.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, k) => k).filter((k) => !takenSlots.has(k)));
      for (const n of first.values()) expect(Math.abs(n - trials / free)).toBeLessThan((trials / free) * 0.2);
    }
  });
  test('a slot held twice here (reclaimed after its lease expired) stays known until both give it back', () => {
    const held = new SlotsHeldHere();
    held.add('l:o:1');
    held.add('l:o:1');
    held.remove('l:o:1');
    expect(held.has('l:o:1')).toBe(true);
    held.remove('l:o:1');
    expect(held.has('l:o:1')).toBe(false);
    held.remove('l:o:2');
    expect(held.has('l:o:2')).toBe(false);
  });
  test('Retry-After is 1 s while leases are young and the time to the earliest expiry when all are old', () => {
    const ttl = 60_000;
    expect(inFlightRetryAfterSeconds([99_000 + ttl, 100_000 + ttl], 100_500, ttl)).toBe(1);
    expect(inFlightRetryAfterSeconds([10_000 + ttl, 20_000 + ttl], 40_000, ttl)).toBe(30);
    expect(inFlightRetryAfterSeconds([], 0, ttl)).toBe(1);
  });
  test('every slot held here is known from the first free one', () => {
    const looked: number[] = [];
    const held = new Set([0, 1, 2]);
    expect(everySlotHeldHere(3, (k) => (looked.push(k), held.has(k)))).toBe(true);
    expect(everySlotHeldHere(4, (k) => held.has(k))).toBe(false);
    looked.length = 0;
    expect(everySlotHeldHere(25, (k) => (looked.push(k), k !== 0))).toBe(false);
    expect(looked).toEqual([0]);
  });
  test('releases asked for within the gathering time share one delete', async () => {
    const calls: string[][] = [];
    const r = new LeaseReleaser(
      async (tokens) => {
        calls.push(tokens);
      },
      () => undefined,
      20,
    );
    // The gathering timer is jest's: 5 ms pass exactly, however busy the machine.
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    try {
      r.release('t0', 'l:o:0');
      jest.advanceTimersByTime(5);
      r.release('t1', 'l:o:1');
      expect(calls).toEqual([]);
      await jest.advanceTimersByTimeAsync(15);
    } finally {
      jest.useRealTimers();
    }
    await r.drain();
    expect(calls).toEqual([['t0', 't1']]);
  });
  test('a lease released before its by-id time is deleted by _id alone, a later one only where its token matches', async () => {
    const calls: Array<{ tokens: string[]; slotIds: string[]; byId: string[] }> = [];
    let now = 1_000;
    const r = new LeaseReleaser(
      async (tokens, slotIds, byId) => {
        calls.push({ tokens, slotIds, byId });
      },
      () => undefined,
      0,
      () => now,
    );
    r.release('t0', 'l:o:0', 1_001);
    r.release('t1', 'l:o:1', 1_000);
    r.release('t2', 'l:o:2');
    await r.drain();
    expect(calls).toEqual([{ tokens: ['t1', 't2'], slotIds: ['l:o:1', 'l:o:2'], byId: ['l:o:0'] }]);
    now = 2_000;
    r.release('t3', 'l:o:3', 1_500);
    await r.drain();
    expect(calls[1]).toEqual({ tokens: ['t3'], slotIds: ['l:o:3'], byId: [] });
  });
  test('old windows are the slots taken more than two seconds before, each returned once', () => {
    const taken = new WindowSlotsTakenHere();
    taken.add(100, 'w:a:100:0');
    taken.add(101, 'w:a:101:0');
    taken.add(102, 'w:a:102:0');
    taken.add(100, 'w:b:100:3');
    expect(taken.takeOld(102)).toEqual([]);
    expect(taken.takeOld(103).sort()).toEqual(['w:a:100:0', 'w:b:100:3']);
    expect(taken.takeOld(103)).toEqual([]);
    expect(taken.takeOld(105)).toEqual(['w:a:101:0', 'w:a:102:0']);
  });
  test('releases are batched and all reach the store', async () => {
    const calls: string[][] = [];
    const r = new LeaseReleaser(
      async (tokens) => {
        calls.push(tokens);
        // A store call that takes a moment, so later releases arrive while one is in flight.
        await new Promise((res) => setTimeout(res, 5));
      },
      () => undefined,
    );
    for (let i = 0; i < 10; i++) r.release(`t${i}`, `l:o:${i}`);
    await new Promise((res) => setImmediate(res));
    for (let i = 10; i < 15; i++) r.release(`t${i}`, `l:o:${i}`);
    await r.drain();
    expect(calls.flat().sort()).toEqual(Array.from({ length: 15 }, (_, i) => `t${i}`).sort());
    expect(calls.length).toBeLessThanOrEqual(3);
  });
});

describe('per-minute cap log (exact in any trailing minute)', () => {
  const T0 = 1_700_000_000_000;
  test('admits exactly N in a minute, then the next when the N-th most recent is 60 s old', () => {
    const log: CapEntry[] = [];
    for (const t of [0, 10_000, 20_000]) {
      const d = capDecision(log, 3, T0 + t);
      expect(d.admit).toBe(true);
      log.push({ i: d.next, at: T0 + t });
    }
    const refused = capDecision(log, 3, T0 + 59_999);
    expect(refused.admit).toBe(false);
    expect(refused.retryAfterSeconds).toBe(1);
    expect(capDecision(log, 3, T0 + 30_000).retryAfterSeconds).toBe(30);
    expect(capDecision(log, 3, T0 + MINUTE_MS)).toMatchObject({ admit: true, next: 3, used: 2 });
  });
  test('a simulated stream never has more than N admitted in any trailing minute and admits whenever fewer were', () => {
    const n = 7;
    const log: CapEntry[] = [];
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    let t = T0;
    for (let i = 0; i < 2000; i++) {
      t += Math.floor(rand() * 3000);
      const inWindow = log.filter((a) => a.at > t - MINUTE_MS).length;
      const d = capDecision(log.slice(-n), n, t);
      expect(d.admit).toBe(inWindow < n);
      expect(d.used).toBe(inWindow);
      if (d.admit) log.push({ i: d.next, at: t });
    }
  });
  test('a given-back entry leaves a hole that counts as free; a lowered cap applies at once', () => {
    const log: CapEntry[] = [
      { i: 0, at: T0 },
      { i: 2, at: T0 + 2 },
    ];
    expect(capDecision(log, 2, T0 + 10)).toMatchObject({ admit: true, next: 3 });
    const full = [0, 1, 2, 3].map((i) => ({ i, at: T0 + i }));
    expect(capDecision(full, 5, T0 + 10).admit).toBe(true);
    expect(capDecision(full, 4, T0 + 10).admit).toBe(false);
    expect(capDecision(full, 2, T0 + 10).admit).toBe(false);
  });
});

describe('effective limits', () => {
  test('defaults: 25 per second and 25 in flight, inherited', () => {
    expect(organizationLimits(emptySettings('o'))).toEqual({ requestsPerSecond: 25, maxConcurrency: 25, source: 'inherited' });
  });
  test('an operation rate and the baseline: the stricter wins', () => {
    const lowered = organizationLimits(withOverrides({ requestsPerSecond: 3 }));
    expect(operationRequestsPerSecond('contact_retrieval_jobs.create', organizationLimits(emptySettings('o')))).toBe(10);
    expect(operationRequestsPerSecond('contact_retrieval_jobs.create', lowered)).toBe(3);
    expect(operationRequestsPerSecond('whoami', lowered)).toBe(3);
    expect(standardRequestsPerMinute(BASELINE_ENTRY, lowered)).toBe(180);
  });
  test('every webhook route and the job routes carry their own rate', () => {
    for (const op of OPERATIONS.filter((o) => o.startsWith('webhook_') || o.startsWith('contact_retrieval_jobs.') || o === 'job_results.get')) {
      expect(OPERATION_REQUESTS_PER_SECOND[op]).toBeGreaterThan(0);
    }
  });
  test('overrides apply to requests of the scope and of narrower scopes only', () => {
    const s = withOverrides({ overrides: [cap(APP, 30), block({ type: 'key', id: 'key_other' })] });
    expect(applicableOverrides(s, 'contact_retrieval_jobs.get', chain).caps).toHaveLength(1);
    expect(applicableOverrides(s, 'contact_retrieval_jobs.get', chain).block).toBeUndefined();
    expect(applicableOverrides(s, 'contact_retrieval_jobs.get', [ORG]).caps).toHaveLength(0);
    expect(applicableOverrides(s, 'contact_retrieval_jobs.list', chain).caps).toHaveLength(0);
  });
});

describe('who may change a limit', () => {
  const s = withOverrides({ overrides: [cap(KEY, 100)] });
  test('a cap must be below standard_requests_per_minute', () => {
    expect(() => checkCapChange(s, 'contact_retrieval_jobs.get', ORG, 1200, 'operator')).toThrow(LimitChangeError);
    expect(() => checkCapChange(s, 'contact_retrieval_jobs.get', ORG, 1199, 'operator')).not.toThrow();
    expect(() => checkCapChange(s, 'whoami', ORG, 1499, 'operator')).not.toThrow();
    expect(() => checkCapChange(s, 'whoami', ORG, 0, 'operator')).toThrow(LimitChangeError);
  });
  test("customers only lower: a cap, a rate, the in-flight limit; clearing is the operator's", () => {
    expect(() => checkCapChange(s, 'contact_retrieval_jobs.get', KEY, 50, 'customer')).not.toThrow();
    expect(() => checkCapChange(s, 'contact_retrieval_jobs.get', KEY, 150, 'customer')).toThrow(/lower/);
    expect(() => checkCapChange(s, 'contact_retrieval_jobs.get', KEY, 150, 'operator')).not.toThrow();
    expect(() => checkRateChange(s, { requestsPerSecond: 10 }, 'customer')).not.toThrow();
    expect(() => checkRateChange(s, { requestsPerSecond: 26 }, 'customer')).toThrow(/operator/);
    expect(() => checkRateChange(s, { maxConcurrency: 40 }, 'customer')).toThrow(/operator/);
    expect(() => checkRateChange(s, { requestsPerSecond: 2000, maxConcurrency: 500 }, 'operator')).not.toThrow();
    expect(() => checkClear('customer')).toThrow(LimitChangeError);
    expect(() => checkClear('operator')).not.toThrow();
  });
  test("a customer clears only the caps and blocks the customer set, never the operator's", () => {
    const customerCap = { ...cap(KEY, 100), setBy: 'customer' as const };
    expect(() => checkClear('customer', customerCap)).not.toThrow();
    expect(() => checkClear('customer', { kind: 'block', setBy: 'customer' })).not.toThrow();
    expect(() => checkClear('customer', cap(KEY, 100))).toThrow(/operator/);
    expect(() => checkClear('customer', { kind: 'block', setBy: 'operator' })).toThrow(/operator/);
    expect(() => checkClear('customer', { kind: 'cleared', setBy: 'customer' })).toThrow(LimitChangeError);
    expect(() => checkClear('operator', cap(KEY, 100))).not.toThrow();
  });
});

describe('limit entries (SPEC 8.3)', () => {
  test('defaults are reported when the organization has none of its own', () => {
    const e = limitEntry(emptySettings('org_1'), BASELINE_ENTRY, [ORG], 60);
    expect(e).toEqual({
      operation: BASELINE_ENTRY,
      scope: { type: 'organization', id: 'org_1' },
      status: 'active',
      source: 'inherited',
      requests_per_second: 25,
      requests_per_minute: null,
      max_concurrency: 25,
      lease_ttl_seconds: 60,
      standard_requests_per_minute: 1500,
      maximum_requests_per_minute: 1499,
      suggested_requests_per_minute: 1200,
      inherited_ceiling_ref: null,
    });
    const op = limitEntry(emptySettings('org_1'), 'contact_retrieval_jobs.batch_create', chain, 60);
    expect(op).toMatchObject({
      requests_per_second: 2,
      standard_requests_per_minute: 120,
      inherited_ceiling_ref: 'key_family:kf_1/contact_retrieval_jobs.batch_create',
    });
    expect(limitEntries(emptySettings('org_1'), [[ORG], chain], 60)).toHaveLength(2 * (OPERATIONS.length + 1));
  });
  test('a cap is an override for its scope and narrower ones; the strictest cap is reported', () => {
    const s = withOverrides({ overrides: [cap(APP, 300), cap(KEY, 100)] });
    expect(limitEntry(s, 'contact_retrieval_jobs.get', [ORG], 60)).toMatchObject({ source: 'inherited', requests_per_minute: null });
    expect(limitEntry(s, 'contact_retrieval_jobs.get', [ORG, APP], 60)).toMatchObject({ source: 'override', requests_per_minute: 300 });
    expect(limitEntry(s, 'contact_retrieval_jobs.get', chain, 60)).toMatchObject({ source: 'override', requests_per_minute: 100 });
  });
  test('the read without filters: the organization entry of each operation, and narrower entries only where they differ', () => {
    const chains = [[ORG], [ORG, APP], [ORG, APP, FAM], chain];
    const plain = condensedLimitEntries(limitEntries(emptySettings('org_1'), chains, 60));
    expect(plain.map((e) => `${e.scope.type}/${e.operation}`)).toEqual([BASELINE_ENTRY, ...OPERATIONS].map((op) => `organization/${op}`));
    const capped = condensedLimitEntries(limitEntries(withOverrides({ overrides: [cap(FAM, 300), block(KEY, 'whoami')] }), chains, 60));
    expect(capped.filter((e) => e.scope.type !== 'organization').map((e) => `${e.scope.type}/${e.operation}`)).toEqual([
      'key_family/contact_retrieval_jobs.get',
      'key/whoami',
      'key/contact_retrieval_jobs.get',
    ]);
  });
  test('entries in pages: each once, in order, the last page without a cursor; a cursor of another list is invalid_cursor', () => {
    const all = limitEntries(emptySettings('org_1'), [[ORG]], 60);
    const seen = [];
    let cursor: string | undefined;
    do {
      const page = limitEntriesPage(CURSOR_KEY, 'org_a', all, 7, cursor);
      seen.push(...page.data);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(all);
    expect(limitEntriesPage(CURSOR_KEY, 'org_a', all, all.length).next_cursor).toBeNull();
    expect(() => limitEntriesPage(CURSOR_KEY, 'org_a', all, 7, encodeListCursor(CURSOR_KEY, 'jobs', { at: 1 }))).toThrow(
      expect.objectContaining({ code: 'invalid_cursor' }),
    );
    const page = limitEntriesPage(CURSOR_KEY, 'org_a', all, 7);
    expect(() => limitEntriesPage(CURSOR_KEY, 'org_b', all, 7, page.next_cursor!)).toThrow(expect.objectContaining({ code: 'invalid_cursor' }));
  });
  test('a block is denied and reports no figures', () => {
    const e = limitEntry(withOverrides({ overrides: [block(FAM)] }), 'contact_retrieval_jobs.get', chain, 60);
    expect(e).toMatchObject({
      status: 'denied',
      source: 'override',
      requests_per_second: null,
      requests_per_minute: null,
      max_concurrency: null,
      lease_ttl_seconds: null,
    });
  });
  test('an organization-wide rate below 25 is an override everywhere; cleared reads as cleared', () => {
    const lowered = withOverrides({ requestsPerSecond: 5 });
    expect(limitEntry(lowered, BASELINE_ENTRY, [ORG], 60)).toMatchObject({ source: 'override', requests_per_second: 5 });
    expect(limitEntry(lowered, 'whoami', chain, 60)).toMatchObject({ source: 'override', requests_per_second: 5 });
    const cleared = withOverrides({ rateCleared: true, overrides: [{ ...cap(KEY, 1), kind: 'cleared', requestsPerMinute: null }] });
    expect(limitEntry(cleared, BASELINE_ENTRY, [ORG], 60)).toMatchObject({ source: 'cleared', requests_per_second: 25 });
    expect(
      limitEntry(withOverrides({ overrides: [{ ...cap(KEY, 1), kind: 'cleared', requestsPerMinute: null }] }), 'contact_retrieval_jobs.get', chain, 60),
    ).toMatchObject({
      source: 'cleared',
      requests_per_minute: null,
    });
  });
});

describe('RateLimit headers (IETF draft syntax)', () => {
  const states = [
    { policy: 'baseline', quota: 25, windowSeconds: 1, remaining: 12, resetSeconds: 1 },
    { policy: 'contact_retrieval_jobs.get@key', quota: 100, windowSeconds: 60, remaining: -3, resetSeconds: 40 },
  ];
  test('policies and remaining quota as structured-field lists', () => {
    expect(rateLimitPolicyHeader(states)).toBe('"baseline";q=25;w=1, "contact_retrieval_jobs.get@key";q=100;w=60');
    expect(rateLimitHeader(states)).toBe('"baseline";r=12;t=1, "contact_retrieval_jobs.get@key";r=0;t=40');
    expect(rateLimitHeaders([])).toEqual({});
  });
  test('an in-flight limit is a concurrency policy: a quota unit, no window and no reset', () => {
    const inFlight = { policy: 'in_flight', quota: 25, remaining: 24, quotaUnit: 'concurrent-requests' as const };
    expect(rateLimitPolicyHeader([states[0], inFlight])).toBe('"baseline";q=25;w=1, "in_flight";q=25;qu="concurrent-requests"');
    expect(rateLimitHeader([states[0], inFlight])).toBe('"baseline";r=12;t=1, "in_flight";r=24');
    expect([...parseRateLimit(rateLimitHeader([states[0], inFlight]))]).toEqual([
      ['baseline', { remaining: 12, resetSeconds: 1 }],
      ['in_flight', { remaining: 24, resetSeconds: undefined }],
    ]);
  });
});

describe('limitSettingsDirectory', () => {
  require('./limitSettingsDirectory.cases');
});
