import { creditBalance } from '../../core/credits/credits';
import { purgeExpiredIdempotencyRecords } from '../../core/idempotency/idempotency';
import { Person } from '../../core/talent/models';
import { seedPeople } from '../../core/talent/seedPeople';
import { createTenant, type TestTenant } from '../support/fixtures';
import { api, type HttpResponse } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';

/**
 * Issue #17, charges, idempotency and search: one test per finding, named after it. Each
 * reproduces the finding through the HTTP API against the real store.
 */
jest.setTimeout(60_000);

let srv: TestApi;
let n = 0;
const key = () => `money-${Date.now()}-${++n}`;
const DAY = 24 * 3600_000;

beforeAll(async () => {
  srv = await startTestApi({ SEARCH_DISTINCT_QUERIES_PER_HOUR: '4', SEARCH_DELIVERY_QUOTA_PER_DAY: '3' });
  await seedPeople({ count: 300 });
});
afterAll(async () => srv.close());

const search = (t: TestTenant, body: unknown, idem = key()) => api(srv.url, 'POST', '/v1/candidates/search', { key: t.key, body, idempotencyKey: idem });
const match = (t: TestTenant, body: unknown, idem = key()) => api(srv.url, 'POST', '/v1/person-matches', { key: t.key, body, idempotencyKey: idem });

export function expectProblem(res: HttpResponse, status: number, code: string) {
  expect({ status: res.status, code: res.json?.code }).toEqual({ status, code });
}

/** What the hourly maintenance run does once the idempotency records are past their 24 h. */
const purgeAsMaintenanceDoesTomorrow = () => purgeExpiredIdempotencyRecords(new Date(Date.now() + DAY + 3600_000));

async function twoPoolPeople() {
  const [a, b] = await Person.find({ source: 'src_talentpool' }).limit(2).lean();
  return [a!, b!];
}

describe('charges are bound to the request that claimed them', () => {
  it('an Idempotency-Key reused after its record expires charges again (person match)', async () => {
    const t = await createTenant({ credits: 10 });
    const [a, b] = await twoPoolPeople();
    const k = key();
    const first = await match(t, { profile_url: a.profileUrl }, k);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ credits_charged: 1, receipt_id: expect.stringMatching(/^rcpt_/) });
    expect(await creditBalance(t.orgId)).toBe(9);

    await purgeAsMaintenanceDoesTomorrow();
    const second = await match(t, { profile_url: b.profileUrl }, k);
    expect(second.status).toBe(200);
    expect(second.json.data[0].person_id).toBe(b._id);
    expect(second.json.credits_charged).toBe(1);
    expect(second.json.receipt_id).not.toBe(first.json.receipt_id);
    expect(await creditBalance(t.orgId)).toBe(8);

    // The same body once the key is forgotten is a new request too (SPEC 7.4: replays last 24 h).
    await purgeAsMaintenanceDoesTomorrow();
    const third = await match(t, { profile_url: b.profileUrl }, k);
    expect(third.json.credits_charged).toBe(1);
    expect(third.json.receipt_id).not.toBe(second.json.receipt_id);
    expect(await creditBalance(t.orgId)).toBe(7);
  });

  it('an Idempotency-Key reused after its record expires charges again and never hands a new query the old search', async () => {
    const t = await createTenant({ credits: 10 });
    const k = key();
    const first = await search(t, { query: 'engineer', page_size: 5 }, k);
    expect(first.status).toBe(200);
    expect(first.json.credits_charged).toBe(1);
    expect(await creditBalance(t.orgId)).toBe(9);

    await purgeAsMaintenanceDoesTomorrow();
    const second = await search(t, { query: 'designer', page_size: 5 }, k);
    expect(second.status).toBe(200);
    expect(second.json.search_id).not.toBe(first.json.search_id);
    expect(second.json.credits_charged).toBe(1);
    expect(second.json.receipt_id).not.toBe(first.json.receipt_id);
    expect(await creditBalance(t.orgId)).toBe(8);
    // The page is the new query's, exactly as a search under a fresh key ranks it.
    const fresh = await search(t, { query: 'designer', page_size: 5 });
    expect(second.json.data.map((p: { person_id: string }) => p.person_id)).toEqual(fresh.json.data.map((p: { person_id: string }) => p.person_id));
  });
});
