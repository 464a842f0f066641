import { PERMISSIONS } from '../../core/keys/permissions';
import { setOrganizationRate } from '../../core/limits/limitSettings';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { outcomeClass, type OutcomeClass } from '../../core/usage/outcomeClass';
import { counterRowId, DAY_MS, HOUR_MS, MINUTE_MS } from '../../core/usage/usageBuckets';
import { UsageCounters } from '../../core/usage/usageCounters';
import { rollUpUsage } from '../../core/usage/usageRollup';
import { usageSeries, type UsagePoint } from '../../core/usage/usageSeries';
import { waitForJobToFinish } from '../support/contactRetrievalJobs';
import { addKey, createTenant, type TestTenant } from '../support/fixtures';
import { api, apiHonouringRateLimits, type HttpResponse } from '../support/http';
import { expectProblemResponse } from '../support/problems';
import { startTestApi, type TestApi } from '../support/testApi';
import { startTestWorker, type TestWorker } from '../support/testWorker';
import { testLogger } from '../support/capturedLogs';
import { fileStores } from '../support/testStore';

let srv: TestApi;
let worker: TestWorker;
let n = 0;
const idem = () => `usage-${Date.now()}-${++n}`;

beforeAll(async () => {
  srv = await startTestApi();
  worker = await startTestWorker(srv.config);
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 60 });
});
afterAll(async () => {
  await worker?.stop();
  await srv?.close();
});

type Requests = Record<OutcomeClass, number>;
const noRequests = (): Requests => ({ success: 0, client_error: 0, rate_limited: 0, server_error: 0 });

/** What the test saw answered, per operation and outcome class. */
class Seen {
  readonly requests = new Map<string, Requests>();
  add(operation: string, res: HttpResponse): HttpResponse {
    const outcome = outcomeClass(res.status);
    if (!outcome) throw new Error(`unexpected status ${res.status}`);
    const r = this.requests.get(operation) ?? noRequests();
    r[outcome] += 1;
    this.requests.set(operation, r);
    return res;
  }
}

/** GET /v1/usage's figures added up per operation over the range. */
function totals(points: UsagePoint[]): Map<string, { requests: Requests; credits: number }> {
  const sums = new Map<string, { requests: Requests; credits: number }>();
  for (const p of points) {
    const s = sums.get(p.operation) ?? { requests: noRequests(), credits: 0 };
    for (const k of Object.keys(s.requests) as OutcomeClass[]) s.requests[k] += p.requests[k];
    s.credits += p.credits;
    sums.set(p.operation, s);
  }
  return sums;
}

/** The ledger's charges per operation: what usage must agree with to the credit. */
async function ledgerCharges(orgId: string): Promise<Map<string, number>> {
  const charges = new Map<string, number>();
  for (const e of (await srv.deps.stores.credits.ledgerEntriesOfOrgs([orgId])).filter((e) => e.kind === 'charge'))
    charges.set(e.operation!, (charges.get(e.operation!) ?? 0) + e.amount);
  return charges;
}

async function getUsage(t: TestTenant, query: string, key = t.key): Promise<HttpResponse> {
  return apiHonouringRateLimits(srv.url, 'GET', `/v1/usage${query}`, { key });
}

describe('GET /v1/usage', () => {
  test('agrees with the ledger to the credit and counts every answer by outcome, refusals included', async () => {
    const t = await createTenant({ credits: 30 });
    const seen = new Seen();
    const people = (await srv.deps.stores.talent.peopleOfSource('src_talentpool', { limit: 12 })).map((p) => p._id);
    const post = (path: string, body: unknown, key = t.key, idempotencyKey = idem()) => api(srv.url, 'POST', path, { key, body, idempotencyKey });

    // Paid answers (1 credit a page, 5 an unlock), a replay (nothing charged), a free repeat.
    const searchKey = idem();
    expect(seen.add('candidates.search', await post('/v1/candidates/search', { query: 'engineer', page_size: 5 }, t.key, searchKey)).status).toBe(200);
    expect(
      seen.add('candidates.search', await post('/v1/candidates/search', { query: 'engineer', page_size: 5 }, t.key, searchKey)).headers['idempotent-replayed'],
    ).toBe('true');
    expect(seen.add('candidates.search', await post('/v1/candidates/search', { query: 'manager', page_size: 5 })).status).toBe(200);
    expect(seen.add('profiles.unlock', await post('/v1/profiles/unlock', { person_id: people[0] })).status).toBe(200);
    expect(seen.add('profiles.unlock', await post('/v1/profiles/unlock', { person_id: people[0] })).status).toBe(200);
    // A job is charged by the worker as it pays for its chunks.
    const job = seen.add('contact_retrieval_jobs.create', await post('/v1/contact-retrieval-jobs', { person_ids: people.slice(1, 6) }));
    expect(job.status).toBe(202);
    const finished = await waitForJobToFinish(srv.url, t.key, job.json.job_id);
    expect(finished.status).toBe('completed');

    // Refusals: a body the contract refuses, a key without the permission, then no credits left.
    expect(seen.add('candidates.search', await post('/v1/candidates/search', { query: '' })).status).toBe(422);
    const unlockOnly = await addKey(t, [PERMISSIONS.profilesUnlock]);
    expect(seen.add('candidates.search', await post('/v1/candidates/search', { query: 'engineer' }, unlockOnly.key)).status).toBe(403);
    let refused: HttpResponse | undefined;
    for (const person of people.slice(6)) {
      const res = seen.add('profiles.unlock', await post('/v1/profiles/unlock', { person_id: person }));
      if (res.status === 402) {
        refused = res;
        break;
      }
      expect(res.status).toBe(200);
    }
    expect(refused?.headers['credits-charged']).toBe('0');
    // Request-rate refusals, before any operation runs: 429s of whoami.
    await setOrganizationRate(fileStores(), srv.config, t.orgId, { requestsPerSecond: 1 }, Date.now);
    const burst = await Promise.all(Array.from({ length: 8 }, () => api(srv.url, 'GET', '/v1/whoami', { key: t.key })));
    for (const res of burst) seen.add('whoami', res);
    expect(burst.some((r) => r.status === 429)).toBe(true);
    await setOrganizationRate(fileStores(), srv.config, t.orgId, { requestsPerSecond: 100 }, Date.now);

    await srv.flushUsage();
    await worker.flushUsage();
    const from = new Date(Date.now() - HOUR_MS).toISOString();
    const res = await getUsage(t, `?granularity=hour&from=${from}`);
    expect(res.status).toBe(200);
    const sums = totals(res.json.data);

    const ledger = await ledgerCharges(t.orgId);
    expect(ledger.get('contact_retrieval_jobs.create')).toBeGreaterThan(0);
    expect(Object.fromEntries([...sums].map(([op, s]) => [op, s.credits]).filter(([, c]) => c !== 0))).toEqual(Object.fromEntries(ledger));
    for (const [operation, requests] of seen.requests) expect({ operation, requests: sums.get(operation)?.requests }).toEqual({ operation, requests });
    expect(sums.get('candidates.search')?.requests).toEqual({ success: 3, client_error: 2, rate_limited: 0, server_error: 0 });
    expect(sums.get('whoami')?.requests.rate_limited).toBeGreaterThan(0);

    // By the day, and for one operation: the same figures.
    const daily = await getUsage(t, `?granularity=day&operation=profiles.unlock&from=${from}`);
    expect(daily.status).toBe(200);
    expect(daily.json.data.every((p: UsagePoint) => p.operation === 'profiles.unlock' && p.start.endsWith('T00:00:00.000Z'))).toBe(true);
    expect(totals(daily.json.data).get('profiles.unlock')).toEqual(sums.get('profiles.unlock'));
  });

  test('needs usage.v1:read and answers only the organization of the key', async () => {
    const t = await createTenant({ credits: 5 });
    const other = await createTenant({ credits: 5 });
    const without = await addKey(t, [PERMISSIONS.candidatesSearch, PERMISSIONS.auditRead]);
    const refused = await getUsage(t, '', without.key);
    expectProblemResponse(refused, 403, 'insufficient_scope');
    expect(refused.json.required_scope).toBe('usage.v1:read');

    expect(
      (await api(srv.url, 'POST', '/v1/candidates/search', { key: other.key, body: { query: 'engineer', page_size: 1 }, idempotencyKey: idem() })).status,
    ).toBe(200);
    await srv.flushUsage();
    const mine = await getUsage(t, '');
    expect(mine.status).toBe(200);
    expect(mine.json.data.filter((p: UsagePoint) => p.operation === 'candidates.search')).toEqual([]);
  });

  test('refuses a range it does not answer: backwards, or longer than 7 days by the hour or 400 by the day', async () => {
    const t = await createTenant();
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    for (const query of [
      `?from=${iso(now)}&to=${iso(now - DAY_MS)}`,
      `?granularity=hour&from=${iso(now - 8 * DAY_MS)}&to=${iso(now)}`,
      `?granularity=day&from=${iso(now - 401 * DAY_MS)}&to=${iso(now)}`,
      '?granularity=week',
      '?operation=candidates.find',
      '?from=yesterday',
    ]) {
      expectProblemResponse(await getUsage(t, query), 422, 'validation_failed');
    }
    expect((await getUsage(t, `?granularity=hour&from=${iso(now - 7 * DAY_MS)}&to=${iso(now)}`)).status).toBe(200);
    expect((await getUsage(t, `?granularity=day&from=${iso(now - 400 * DAY_MS)}&to=${iso(now)}`)).status).toBe(200);
    // A date is its UTC midnight, as the reference documents.
    const day = (ms: number) => iso(ms).slice(0, 10);
    expect((await getUsage(t, `?from=${day(now - 3 * DAY_MS)}&to=${day(now + DAY_MS)}`)).status).toBe(200);
  });
});

/** Every hour row of the organization, read through the usage store. */
function hourRowsOf(orgId: string) {
  return srv.deps.stores.usage.hourRowsOfOrgBetween(orgId, new Date(0), new Date(Date.parse('2100-01-01T00:00:00Z')));
}

describe('the counters and their roll-up by the store maintenance', () => {
  test('a minute is written once it has ended, into its hour row, in one write per organization', async () => {
    const t = await createTenant();
    let clock = Date.parse('2026-11-20T09:58:30Z');
    const counters = new UsageCounters(srv.deps.stores, { logger: testLogger(), now: () => clock });
    counters.countRequest(t.orgId, 'candidates.search', 200, 1);
    counters.countRequest(t.orgId, 'profiles.unlock', 200, 5);
    await counters.flush();
    expect(await hourRowsOf(t.orgId)).toEqual([]);
    clock += MINUTE_MS;
    counters.countRequest(t.orgId, 'candidates.search', 429, 0);
    await counters.flush();
    const [row] = await srv.deps.stores.usage.hourRowsByIds([counterRowId(t.orgId, Date.parse('2026-11-20T09:00:00Z'))]);
    expect(row?.ops).toEqual({ 'candidates:search': { success: 1, credits: 1 }, 'profiles:unlock': { success: 1, credits: 5 } });
    expect(counters.pendingMinutes()).toHaveLength(1);
    await counters.flush({ all: true });
    expect((await srv.deps.stores.usage.hourRowsByIds([row._id]))[0]?.ops).toEqual({
      'candidates:search': { success: 1, rate_limited: 1, credits: 1 },
      'profiles:unlock': { success: 1, credits: 5 },
    });
  });

  test('folds ended days into month rows with the same figures, and deletes only hour rows folded and past retention', async () => {
    const t = await createTenant();
    // Counted by a clock the test sets: 120 days ago, three days and two hours ago, 20 minutes ago.
    const now = Date.parse('2026-11-25T10:20:00Z');
    let clock = now - 120 * DAY_MS;
    const counters = new UsageCounters(srv.deps.stores, { logger: testLogger(), now: () => clock });
    counters.countRequest(t.orgId, 'whoami', 200, 0);
    clock = now - 3 * DAY_MS - 2 * HOUR_MS;
    counters.countRequest(t.orgId, 'candidates.search', 200, 1);
    counters.countRequest(t.orgId, 'candidates.search', 429, 0);
    clock += 65 * MINUTE_MS;
    counters.countRequest(t.orgId, 'candidates.search', 200, 1);
    counters.countRequest(t.orgId, 'profiles.unlock', 200, 5);
    clock = now - 20 * MINUTE_MS;
    counters.countRequest(t.orgId, 'profiles.unlock', 402, 0);
    await counters.flush({ all: true });

    const read = (granularity: 'hour' | 'day', fromMs: number) =>
      usageSeries(srv.deps.stores, { orgId: t.orgId, from: new Date(fromMs), to: new Date(now), granularity }, now);
    const before = { days: await read('day', now - 200 * DAY_MS), hours: await read('hour', now - 4 * DAY_MS) };
    expect(before.days.map((p) => [p.start, p.operation, p.credits])).toEqual([
      ['2026-07-28T00:00:00.000Z', 'whoami', 0],
      ['2026-11-22T00:00:00.000Z', 'candidates.search', 2],
      ['2026-11-22T00:00:00.000Z', 'profiles.unlock', 5],
      ['2026-11-25T00:00:00.000Z', 'profiles.unlock', 0],
    ]);
    expect(before.hours.map((p) => [p.start, p.operation, p.requests.success, p.requests.rate_limited])).toEqual([
      ['2026-11-22T08:00:00.000Z', 'candidates.search', 1, 1],
      ['2026-11-22T09:00:00.000Z', 'candidates.search', 1, 0],
      ['2026-11-22T09:00:00.000Z', 'profiles.unlock', 1, 0],
      ['2026-11-25T10:00:00.000Z', 'profiles.unlock', 0, 0],
    ]);

    // As before the first roll-up: nothing folded yet.
    await srv.deps.stores.usage.setRolledUpUntil(new Date(0));
    const counts = await rollUpUsage(srv.deps.stores, new Date(now));
    expect(counts.hourRowsDeleted).toBeGreaterThanOrEqual(1);
    expect(await read('day', now - 200 * DAY_MS)).toEqual(before.days);
    expect(await read('hour', now - 4 * DAY_MS)).toEqual(before.hours);
    // The 120-day-old hour is gone (folded, past 100 days); the rest stay for reads by the hour.
    const hourRows = await hourRowsOf(t.orgId);
    expect(hourRows.map((r) => r.start.toISOString()).sort()).toEqual(['2026-11-22T08:00:00.000Z', '2026-11-22T09:00:00.000Z', '2026-11-25T10:00:00.000Z']);
    const [november] = await srv.deps.stores.usage.monthRowsByIds([counterRowId(t.orgId, Date.parse('2026-11-01T00:00:00Z'))]);
    expect(november?.days).toEqual({ '22': 'candidates.search 2 0 1 0 2;profiles.unlock 1 0 0 0 5' });

    // A second run finds nothing new and changes nothing.
    await rollUpUsage(srv.deps.stores, new Date(now));
    expect(await read('day', now - 200 * DAY_MS)).toEqual(before.days);
  });
});
