import { createHash, createHmac } from 'node:crypto';
import { charge, creditBalance } from '../../core/credits/credits';
import { claimChargeKey, idempotencyRecordId, purgeExpiredIdempotencyRecords, requestFingerprint } from '../../core/idempotency/idempotency';
import { createApiKey } from '../../core/keys/apiKeys';
import { PERMISSIONS } from '../../core/keys/permissions';
import { createWorkspace } from '../../core/tenancy/provisioning';
import { personIdFor } from '../../scripts/seeding/generator';
import { DEFAULT_PEOPLE_SEED, seedPeople } from '../../scripts/seeding/seedPeople';
import { addKey, createTenant, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { eventually } from '../support/eventually';
import { expectProblemResponse } from '../support/problems';
import { fileStores } from '../support/testStore';

/**
 * Charges, idempotency and search: one test per rule an abuse could break, named after the
 * rule. Each tries the abuse through the HTTP API against the real store.
 */

let srv: TestApi;
let n = 0;
const key = () => `money-${Date.now()}-${++n}`;
const DAY = 24 * 3600_000;
const PEOPLE = 300;
/** Candidates one search may visit here: half the people. */
const SCAN_BUDGET = 150;

beforeAll(async () => {
  srv = await startTestApi({
    SEARCH_DISTINCT_QUERIES_PER_HOUR: '4',
    SEARCH_PREVIEW_QUOTA_PER_DAY: '40',
    SEARCH_DELIVERY_QUOTA_PER_DAY: '3',
    SEARCH_SCAN_BUDGET: String(SCAN_BUDGET),
  });
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: PEOPLE });
});
afterAll(async () => srv.close());

const search = (t: TestTenant, body: unknown, idem = key()) => api(srv.url, 'POST', '/v1/candidates/search', { key: t.key, body, idempotencyKey: idem });
const match = (t: TestTenant | { key: string }, body: unknown, idem = key()) =>
  api(srv.url, 'POST', '/v1/person-matches', { key: t.key, body, idempotencyKey: idem });
const unlock = (t: TestTenant, personId: string, idem = key()) =>
  api(srv.url, 'POST', '/v1/profiles/unlock', { key: t.key, body: { person_id: personId }, idempotencyKey: idem });
const storedSearches = (t: TestTenant) => srv.deps.stores.talent.searchCountOfOrg(t.orgId);

/** What the hourly maintenance run does once the idempotency records are past their 24 h. */
const purgeAsMaintenanceDoesTomorrow = () => purgeExpiredIdempotencyRecords(srv.deps.stores, new Date(Date.now() + DAY + 3600_000));

async function twoPoolPeople() {
  const [a, b] = await srv.deps.stores.talent.peopleOfSource('src_talentpool', { limit: 2 });
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
    expect(await creditBalance(srv.deps, t.orgId)).toBe(9);

    await purgeAsMaintenanceDoesTomorrow();
    const second = await match(t, { profile_url: b.profileUrl }, k);
    expect(second.status).toBe(200);
    expect(second.json.data[0].person_id).toBe(b._id);
    expect(second.json.credits_charged).toBe(1);
    expect(second.json.receipt_id).not.toBe(first.json.receipt_id);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(8);

    // The same body once the key is forgotten is a new request too (SPEC 7.4: replays last 24 h).
    await purgeAsMaintenanceDoesTomorrow();
    const third = await match(t, { profile_url: b.profileUrl }, k);
    expect(third.json.credits_charged).toBe(1);
    expect(third.json.receipt_id).not.toBe(second.json.receipt_id);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(7);
  });

  it('an Idempotency-Key reused after its record expires charges again and never hands a new query the old search', async () => {
    const t = await createTenant({ credits: 10 });
    const k = key();
    const first = await search(t, { query: 'engineer', page_size: 5 }, k);
    expect(first.status).toBe(200);
    expect(first.json.credits_charged).toBe(1);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(9);

    await purgeAsMaintenanceDoesTomorrow();
    const second = await search(t, { query: 'designer', page_size: 5 }, k);
    expect(second.status).toBe(200);
    expect(second.json.search_id).not.toBe(first.json.search_id);
    expect(second.json.credits_charged).toBe(1);
    expect(second.json.receipt_id).not.toBe(first.json.receipt_id);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(8);
    // The page is the new query's, exactly as a search under a fresh key ranks it.
    const fresh = await search(t, { query: 'designer', page_size: 5 });
    expect(second.json.data.map((p: { person_id: string }) => p.person_id)).toEqual(fresh.json.data.map((p: { person_id: string }) => p.person_id));
  });
});

/** A request that claimed `k`, charged under its claim, and crashed before answering. */
async function crashedAfterCharging(t: TestTenant, k: string, operation: string, path: string, body: unknown, amount: number) {
  const claim = { orgId: t.orgId, workspaceId: t.workspaceId, key: k, nonce: `nonce-${k}` };
  const now = Date.now();
  await srv.deps.stores.idempotency.insertClaim({
    _id: idempotencyRecordId(t.orgId, t.workspaceId, k),
    orgId: t.orgId,
    workspaceId: t.workspaceId,
    operation,
    fingerprint: requestFingerprint(operation, 'POST', path, body, t),
    nonce: claim.nonce,
    state: 'in_progress',
    owner: 'crashed',
    leaseUntil: new Date(now - 1000),
    createdAt: new Date(now - 5000),
    expiresAt: new Date(now + DAY),
  });
  return charge(srv.deps, { orgId: t.orgId, familyId: t.familyId, amount, operation, chargeKey: claimChargeKey(operation, claim) });
}

describe('retries of a crashed or failed request', () => {
  it('a retry after a crash between charge and answer finds its own receipt and is not charged twice', async () => {
    const t = await createTenant({ credits: 10 });
    const [a] = await twoPoolPeople();
    const k = key();
    const body = { profile_url: a.profileUrl };
    const paid = await crashedAfterCharging(t, k, 'person_matches.create', '/v1/person-matches', body, 1);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(9);
    const retried = await match(t, body, k);
    expect(retried.status).toBe(200);
    expect(retried.json).toMatchObject({ credits_charged: 1, receipt_id: paid.receiptId });
    expect(await creditBalance(srv.deps, t.orgId)).toBe(9);
    const replay = await match(t, body, k);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(retried.text);
  });

  it('a retry of a paid search after a crash answers with its receipt, even once the credits ran out', async () => {
    const t = await createTenant({ credits: 1 });
    const k = key();
    const body = { query: 'engineer', page_size: 3 };
    const paid = await crashedAfterCharging(t, k, 'candidates.search', '/v1/candidates/search', body, 1);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(0);
    const retried = await search(t, body, k);
    expect(retried.status).toBe(200);
    expect(retried.json).toMatchObject({ credits_charged: 1, receipt_id: paid.receiptId });
    expect(retried.json.data).toHaveLength(3);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(0);
  });

  it('concurrent retries of a crashed request: one takes the claim over, one charge, one answer', async () => {
    const t = await createTenant({ credits: 10 });
    const [a] = await twoPoolPeople();
    const k = key();
    const body = { profile_url: a.profileUrl };
    const paid = await crashedAfterCharging(t, k, 'person_matches.create', '/v1/person-matches', body, 1);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        eventually('an answer that is not idempotency_in_progress', async () => {
          const res = await match(t, body, k);
          return res.status === 409 && res.json.code === 'idempotency_in_progress' ? undefined : res;
        }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(new Set(answers.map((r) => r.text)).size).toBe(1);
    expect(answers[0].json).toMatchObject({ credits_charged: 1, receipt_id: paid.receiptId });
    expect(answers.filter((r) => r.headers['idempotent-replayed'] !== 'true')).toHaveLength(1);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(9);
  });

  it('a key whose request failed may carry another request', async () => {
    const t = await createTenant({ credits: 0 });
    const k = key();
    expectProblemResponse(await search(t, { query: 'engineer' }, k), 402, 'insufficient_credits');
    expectProblemResponse(await search(t, { query: 'designer' }, k), 402, 'insufficient_credits');
  });
});

describe('idempotency records are scoped to the caller', () => {
  it('an idempotency record is scoped to its workspace and its fingerprint names the caller', async () => {
    const t = await createTenant({ credits: 10 });
    const [a] = await twoPoolPeople();
    const ws2 = await createWorkspace(fileStores(), t.orgId);
    const other = await createApiKey(fileStores(), {
      orgId: t.orgId,
      workspaceId: ws2.workspace_id,
      applicationId: t.applicationId,
      scopes: [PERMISSIONS.personMatchesCreate],
      audience: 'developer-api',
    });
    const k = key();
    const body = { profile_url: a.profileUrl };
    const first = await match(t, body, k);
    expect(first.json.credits_charged).toBe(1);

    // Another workspace: its own request under its own record, never the first one's answer.
    const fromOtherWorkspace = await match({ key: other.key }, body, k);
    expect(fromOtherWorkspace.status).toBe(200);
    expect(fromOtherWorkspace.headers['idempotent-replayed']).toBeUndefined();
    expect(fromOtherWorkspace.json.receipt_id).not.toBe(first.json.receipt_id);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(8);

    // Another key family of the same workspace: a different caller, so a different request.
    const family = await addKey(t, [PERMISSIONS.personMatchesCreate]);
    expectProblemResponse(await match({ key: family.key }, body, k), 409, 'idempotency_key_reused');
    // The caller itself still replays.
    const replay = await match(t, body, k);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(8);
  });
});

describe('no request makes the API do unbounded work for free', () => {
  it('a search whose filters match nobody counts toward the distinct-query cap', async () => {
    const t = await createTenant({ credits: 5 });
    for (let years = 40; years < 44; years++) {
      const res = await search(t, { filters: { seniority: ['intern'], min_years_experience: years } });
      expect(res.status).toBe(200);
      expect(res.json).toMatchObject({ data: [], total_estimate: 0, credits_charged: 0 });
    }
    expectProblemResponse(await search(t, { filters: { seniority: ['intern'], min_years_experience: 44 } }), 429, 'distinct_query_cap');
    // A repeat is not a new distinct query.
    expect((await search(t, { filters: { seniority: ['intern'], min_years_experience: 40 } })).status).toBe(200);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(5);
  });

  it('a search is refused before the scan when the organization cannot pay for a page or its preview quota is used up', async () => {
    const broke = await createTenant({ credits: 0 });
    expectProblemResponse(await search(broke, { filters: { seniority: ['intern'], min_years_experience: 60 } }), 402, 'insufficient_credits');

    const t = await createTenant({ credits: 10 });
    const all = await search(t, { filters: { min_years_experience: 0 }, page_size: 40 });
    expect(all.json.data).toHaveLength(40);
    expectProblemResponse(await search(t, { filters: { seniority: ['intern'], min_years_experience: 60 } }), 429, 'preview_quota_exceeded');
    expect(await creditBalance(srv.deps, t.orgId)).toBe(9);
  });

  it('the scan of a search has a budget: past it the search answers with what it found and an estimated total', async () => {
    const t = await createTenant({ credits: 10 });
    const res = await search(t, { filters: { min_years_experience: 0 }, page_size: 10 });
    expect(res.status).toBe(200);
    // Everyone of the pool matches; the scan visited SCAN_BUDGET people and extrapolated the rest.
    const found = (await srv.deps.stores.talent.peopleOfSource('src_talentpool', { limit: PEOPLE })).filter((p) => p.ordinal < SCAN_BUDGET).length;
    expect(res.json.total_estimate).toBe(Math.round((found * PEOPLE) / SCAN_BUDGET));
    const kept = await srv.deps.stores.talent.findSearchRecord(res.json.search_id);
    expect(kept!.personIds).toHaveLength(found);
    const firstOrdinals = (await srv.deps.stores.talent.peopleByIds(res.json.data.map((p: { person_id: string }) => p.person_id))).map((p) => p.ordinal);
    expect(Math.max(...firstOrdinals)).toBeLessThan(SCAN_BUDGET);
  });
});

describe('refused searches are not stored; ids are keyed by the server secret', () => {
  it('refused searches (429 distinct_query_cap, preview_quota_exceeded, 402) are not stored', async () => {
    const broke = await createTenant({ credits: 0 });
    expectProblemResponse(await search(broke, { query: 'engineer' }), 402, 'insufficient_credits');
    expect(await storedSearches(broke)).toBe(0);

    const capped = await createTenant({ credits: 10 });
    for (let years = 0; years < 4; years++)
      expect((await search(capped, { query: 'engineer', page_size: 1, filters: { min_years_experience: years } })).status).toBe(200);
    expect(await storedSearches(capped)).toBe(4);
    expectProblemResponse(await search(capped, { query: 'engineer', filters: { min_years_experience: 9 } }), 429, 'distinct_query_cap');
    expect(await storedSearches(capped)).toBe(4);

    // 40 previews a day: 25 people, then 20 others (refused after its scan, so after nothing was stored).
    const quota = await createTenant({ credits: 10 });
    expect((await search(quota, { filters: { seniority: ['mid', 'senior'] }, page_size: 25 })).json.data).toHaveLength(25);
    const others = { seniority: ['intern', 'junior', 'lead', 'manager', 'director', 'vp', 'executive'] };
    expectProblemResponse(await search(quota, { filters: others, page_size: 20 }), 429, 'preview_quota_exceeded');
    expect(await storedSearches(quota)).toBe(1);
  });

  it('search and person ids are derived with a server-side secret, not from public inputs', async () => {
    const t = await createTenant({ credits: 10 });
    const k = key();
    const res = await search(t, { query: 'engineer', page_size: 1 }, k);
    const unkeyed = createHash('sha256').update(`search:${t.orgId}:${k}`).digest();
    expect(res.json.search_id).not.toBe(`srch_${base62(unkeyed)}`);

    const first = (await srv.deps.stores.talent.personOfSeed(DEFAULT_PEOPLE_SEED, 0))!;
    expect(first._id).toBe(personIdFor(srv.deps.purposeKeys, DEFAULT_PEOPLE_SEED, 0));
    expect(first._id).not.toBe(`per_${base62(createHmac('sha256', `people:${DEFAULT_PEOPLE_SEED}`).update('0').digest())}`);
  });
});

describe('unlock refuses before it charges', () => {
  it('unlock never answers 429 after charging: the delivery quota is taken before the charge', async () => {
    const t = await createTenant({ credits: 100 });
    const people = await srv.deps.stores.talent.peopleOfSource('src_talentpool', { skip: 10, limit: 4 });
    for (const p of people.slice(0, 2)) expect((await unlock(t, p._id)).status).toBe(200);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(90);
    // One delivery left today, two new people at once: one is unlocked and paid, the other refused and free.
    const [x, y] = await Promise.all([unlock(t, people[2]._id), unlock(t, people[3]._id)]);
    expect([x.status, y.status].sort()).toEqual([200, 429]);
    expectProblemResponse(x.status === 429 ? x : y, 429, 'delivery_quota_exceeded');
    expect(await creditBalance(srv.deps, t.orgId)).toBe(85);
  });
});

function base62(digest: Buffer): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let out = '';
  for (let i = 0; i < 22; i++) out += alphabet[digest[i] % 62];
  return out;
}
