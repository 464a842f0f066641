import { charge, creditBalance, setBudget } from '../../core/credits/credits';
import { claimChargeKey, idempotencyRecordId, requestFingerprint } from '../../core/idempotency/idempotency';
import { PERMISSIONS } from '../../core/keys/permissions';
import { encodeCursor } from '../../core/talent/searchCursor';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { OPEN_WEB_SOURCE_ID, setSourceEnabled } from '../../core/talent/sources';
import { unlockChargeKey } from '../../core/talent/unlockProfile';
import { addKey, createTenant, type TestTenant } from '../support/fixtures';
import { api, rawRequest, type HttpResponse } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { eventually } from '../support/eventually';
import { expectProblemResponse } from '../support/problems';
import { fileStores } from '../support/testStore';

let srv: TestApi;
let n = 0;
const key = () => `test-key-${Date.now()}-${++n}`;

beforeAll(async () => {
  srv = await startTestApi({
    SEARCH_PREVIEW_QUOTA_PER_DAY: '60',
    SEARCH_DISTINCT_QUERIES_PER_HOUR: '8',
    SEARCH_DELIVERY_QUOTA_PER_DAY: '3',
  });
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 400 });
});
afterAll(async () => srv.close());

const search = (t: TestTenant, body: unknown, idem: string | undefined = key()) =>
  api(srv.url, 'POST', '/v1/candidates/search', { key: t.key, body, idempotencyKey: idem });
const unlock = (t: TestTenant, personId: string, idem = key()) =>
  api(srv.url, 'POST', '/v1/profiles/unlock', { key: t.key, body: { person_id: personId }, idempotencyKey: idem });
const match = (t: TestTenant, body: unknown, idem = key()) => api(srv.url, 'POST', '/v1/person-matches', { key: t.key, body, idempotencyKey: idem });

async function poolPerson(except: readonly string[] = []) {
  return (await srv.deps.stores.talent.peopleOfSource('src_talentpool', { limit: except.length + 1 })).find((p) => !except.includes(p._id))!;
}

describe('GET /v1/search/sources', () => {
  test('lists the built-in pool, and operator-enabled sources once enabled', async () => {
    const t = await createTenant();
    const res = await api(srv.url, 'GET', '/v1/search/sources', { key: t.key });
    expect(res.status).toBe(200);
    expect(res.json.data.map((s: any) => s.source_id)).toEqual(['src_talentpool']);
    expect(res.json.data[0]).toMatchObject({ name: expect.any(String), covers: expect.arrayContaining(['skills']), built_in: true });
    await setSourceEnabled(fileStores(), srv.config, t.orgId, OPEN_WEB_SOURCE_ID, true);
    const after = await api(srv.url, 'GET', '/v1/search/sources', { key: t.key });
    expect(after.json.data.map((s: any) => s.source_id)).toEqual(['src_talentpool', OPEN_WEB_SOURCE_ID]);
  });
  test('401 without a key, 403 without candidates.search', async () => {
    const t = await createTenant();
    expectProblemResponse(await api(srv.url, 'GET', '/v1/search/sources'), 401, 'missing_api_key');
    const k = await addKey(t, [PERMISSIONS.profilesUnlock]);
    expectProblemResponse(await api(srv.url, 'GET', '/v1/search/sources', { key: k.key }), 403, 'insufficient_scope');
  });
});

describe('POST /v1/candidates/search', () => {
  test('a page of previews without contact data, charged 1 credit, then the next page by cursor', async () => {
    const t = await createTenant({ credits: 10 });
    const res = await search(t, { query: 'manager', page_size: 5 });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ search_id: expect.stringMatching(/^srch_/), credits_charged: 1, receipt_id: expect.stringMatching(/^rcpt_/) });
    expect(res.json.data).toHaveLength(5);
    expect(res.json.total_estimate).toBeGreaterThan(5);
    expect(res.text).not.toMatch(/@|phone|email|positions|education/);
    expect(Object.keys(res.json.data[0]).sort()).toEqual([
      'company',
      'headline',
      'location',
      'name',
      'person_id',
      'seniority',
      'source',
      'title',
      'top_skills',
      'years_experience',
    ]);
    for (const p of res.json.data) expect(p.person_id).toMatch(/^per_[0-9A-Za-z]{22}$/);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(9);
    const page2 = await search(t, { cursor: res.json.next_cursor, page_size: 5 });
    expect(page2.status).toBe(200);
    expect(page2.json.search_id).toBe(res.json.search_id);
    const first = new Set(res.json.data.map((p: any) => p.person_id));
    expect(page2.json.data.some((p: any) => first.has(p.person_id))).toBe(false);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(8);
  });

  test('a title or skill match ranks before a passing mention', async () => {
    const t = await createTenant({ credits: 10 });
    const res = await search(t, { query: 'recruiter', page_size: 50 });
    expect(res.status).toBe(200);
    const strong = res.json.data.map((p: any) => /recruiter/i.test(p.title));
    expect(strong[0]).toBe(true);
    // Once a result matches only in passing, no title match follows it.
    const firstWeak = strong.indexOf(false);
    if (firstWeak >= 0) expect(strong.slice(firstWeak).every((s: boolean) => !s)).toBe(true);
  });

  test('filters are exact', async () => {
    const t = await createTenant({ credits: 10 });
    const res = await search(t, { filters: { seniority: ['senior', 'lead'], min_years_experience: 5, locations: ['United States', 'DE'] }, page_size: 50 });
    expect(res.status).toBe(200);
    expect(res.json.data.length).toBeGreaterThan(0);
    for (const p of res.json.data) {
      expect(['senior', 'lead']).toContain(p.seniority);
      expect(p.years_experience).toBeGreaterThanOrEqual(5);
      expect(p.location.country === 'United States' || p.location.country_code === 'DE').toBe(true);
    }
  });

  test('an empty page is free', async () => {
    const t = await createTenant({ credits: 3 });
    const res = await search(t, { query: 'qwertyuiopnothing' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ data: [], next_cursor: null, total_estimate: 0, credits_charged: 0, receipt_id: null });
    expect(await creditBalance(srv.deps, t.orgId)).toBe(3);
  });

  test('a replay returns the same bytes with Idempotent-Replayed, charged once; another body is 409', async () => {
    const t = await createTenant({ credits: 10 });
    const k = key();
    const a = await search(t, { query: 'engineer', page_size: 3 }, k);
    const b = await rawRequest(srv.url, {
      method: 'POST',
      path: '/v1/candidates/search',
      headers: { Authorization: `Bearer ${t.key}`, 'Idempotency-Key': k, 'Content-Type': 'application/json' },
      body: '{ "page_size": 3,   "query": "engineer" }',
    });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.text).toBe(a.text);
    expect(b.headers['idempotent-replayed']).toBe('true');
    expect(a.headers['idempotent-replayed']).toBeUndefined();
    expect(await creditBalance(srv.deps, t.orgId)).toBe(9);
    expectProblemResponse(await search(t, { query: 'engineer', page_size: 4 }, k), 409, 'idempotency_key_reused');
    // The key is scoped to the organization: another one may use it freely.
    const other = await createTenant({ credits: 1 });
    expect((await search(other, { query: 'engineer', page_size: 3 }, k)).status).toBe(200);
  });

  test("cursor errors: forged 400, another organization's 400, another search's 400, old 410", async () => {
    const t = await createTenant({ credits: 10 });
    const res = await search(t, { query: 'engineer', page_size: 2 });
    const cursor: string = res.json.next_cursor;
    const forged = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    expectProblemResponse(await search(t, { cursor: forged }), 400, 'invalid_cursor');
    expectProblemResponse(await search(t, { cursor: 'not-a-cursor' }), 400, 'invalid_cursor');
    const other = await createTenant({ credits: 10 });
    expectProblemResponse(await search(other, { cursor }), 400, 'invalid_cursor');
    expectProblemResponse(await search(t, { cursor, query: 'designer' }), 400, 'invalid_cursor');
    const old = encodeCursor(srv.config, t.orgId, res.json.search_id, 2, Date.now() - 2 * 3600_000);
    expectProblemResponse(await search(t, { cursor: old }), 410, 'cursor_expired');
    expect(await creditBalance(srv.deps, t.orgId)).toBe(9);
  });

  test('request errors: 400 key, 413, 415, 422 (tenant id, page size, unknown source)', async () => {
    const t = await createTenant({ credits: 10 });
    expectProblemResponse(await search(t, { query: 'x' }, ''), 400, 'invalid_idempotency_key');
    expectProblemResponse(await search(t, { query: 'x' }, 'short'), 400, 'invalid_idempotency_key');
    expectProblemResponse(await search(t, { query: 'x' }, '-starts-with-dash'), 400, 'invalid_idempotency_key');
    const big = await search(t, { query: 'x'.repeat(70_000) });
    expectProblemResponse(big, 413, 'body_too_large');
    const text = await rawRequest(srv.url, {
      method: 'POST',
      path: '/v1/candidates/search',
      headers: { Authorization: `Bearer ${t.key}`, 'Idempotency-Key': key(), 'Content-Type': 'text/plain' },
      body: 'query=x',
    });
    expectProblemResponse(text, 415, 'unsupported_media_type');
    const tenantField = await search(t, { query: 'engineer', filters: { org_id: t.orgId } });
    expectProblemResponse(tenantField, 422, 'validation_failed');
    expect(tenantField.json.errors[0].field).toBe('filters.org_id');
    expectProblemResponse(await search(t, { query: 'engineer', organization_id: 'org_x' }), 422, 'validation_failed');
    expectProblemResponse(await search(t, { query: 'engineer', page_size: 51 }), 422, 'validation_failed');
    expectProblemResponse(await search(t, { query: 'engineer', sources: [OPEN_WEB_SOURCE_ID] }), 422, 'validation_failed');
    expectProblemResponse(await search(t, {}), 422, 'validation_failed');
    expect(await creditBalance(srv.deps, t.orgId)).toBe(10);
  });

  test('401, 403 and the three 402s charge nothing', async () => {
    const t = await createTenant({ credits: 0 });
    expectProblemResponse(await api(srv.url, 'POST', '/v1/candidates/search', { body: { query: 'engineer' }, idempotencyKey: key() }), 401, 'missing_api_key');
    const k = await addKey(t, [PERMISSIONS.profilesUnlock]);
    expectProblemResponse(
      await api(srv.url, 'POST', '/v1/candidates/search', { key: k.key, body: { query: 'engineer' }, idempotencyKey: key() }),
      403,
      'insufficient_scope',
    );
    expectProblemResponse(await search(t, { query: 'engineer' }), 402, 'insufficient_credits');
    const funded = await createTenant({ credits: 5 });
    await setBudget(srv.deps, { orgId: funded.orgId, familyId: funded.familyId, amount: 0 });
    expectProblemResponse(await search(funded, { query: 'engineer' }), 402, 'family_budget_exhausted');
    await setBudget(srv.deps, { orgId: funded.orgId, familyId: funded.familyId, amount: null });
    await setBudget(srv.deps, { orgId: funded.orgId, amount: 0 });
    expectProblemResponse(await search(funded, { query: 'engineer' }), 402, 'organization_budget_exhausted');
    expect(await creditBalance(srv.deps, funded.orgId)).toBe(5);
    // A refused request is not stored: the same key runs again once funded.
    const k2 = key();
    await setBudget(srv.deps, { orgId: funded.orgId, amount: null });
    await setBudget(srv.deps, { orgId: funded.orgId, familyId: funded.familyId, amount: 0 });
    expectProblemResponse(await search(funded, { query: 'engineer' }, k2), 402, 'family_budget_exhausted');
    await setBudget(srv.deps, { orgId: funded.orgId, familyId: funded.familyId, amount: 1 });
    expect((await search(funded, { query: 'engineer' }, k2)).status).toBe(200);
    expect(await creditBalance(srv.deps, funded.orgId)).toBe(4);
    expectProblemResponse(await search(funded, { query: 'designer' }), 402, 'family_budget_exhausted');
  });

  test('429 distinct_query_cap and preview_quota_exceeded charge nothing', async () => {
    const t = await createTenant({ credits: 100 });
    for (let i = 0; i < 8; i++) expect((await search(t, { query: 'engineer', page_size: 1, filters: { min_years_experience: i } })).status).toBe(200);
    const before = await creditBalance(srv.deps, t.orgId);
    expectProblemResponse(await search(t, { query: 'engineer', page_size: 1, filters: { min_years_experience: 9 } }), 429, 'distinct_query_cap', {
      retryAfter: '1',
    });
    // The same parameters again are not a new distinct query.
    expect((await search(t, { query: 'engineer', page_size: 1, filters: { min_years_experience: 0 } })).status).toBe(200);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(before - 1);

    const p = await createTenant({ credits: 100 });
    expect((await search(p, { query: 'manager', page_size: 50 })).status).toBe(200);
    const afterFirst = await creditBalance(srv.deps, p.orgId);
    expectProblemResponse(await search(p, { query: 'engineer', page_size: 50 }), 429, 'preview_quota_exceeded', { retryAfter: '1' });
    expect(await creditBalance(srv.deps, p.orgId)).toBe(afterFirst);
  });

  test('50 concurrent requests with one key: one charge, 50 identical bodies', async () => {
    const t = await createTenant({ credits: 10 });
    const k = key();
    // Each client retries, as a client would, while the request is in progress or rate-limited.
    const one = (): Promise<HttpResponse> =>
      eventually(
        'an answer',
        async () => {
          const res = await search(t, { query: 'developer', page_size: 10 }, k);
          if (res.status === 409 && res.json.code === 'idempotency_in_progress') {
            expect(res.headers['retry-after']).toBeDefined();
            return undefined;
          }
          return res.status !== 429 ? res : undefined;
        },
        { timeoutMs: 50_000, intervalMs: 100 },
      );
    const all = await Promise.all(Array.from({ length: 50 }, one));
    expect(all.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(new Set(all.map((r) => r.text)).size).toBe(1);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(9);
  });

  test('20 concurrent paid requests against a balance that funds 10: exactly 10 succeed', async () => {
    const t = await createTenant({ credits: 10 });
    const all = await Promise.all(
      Array.from({ length: 20 }, () =>
        eventually(
          'an answer that is not rate-limited',
          async () => {
            const res = await search(t, { query: 'analyst', page_size: 5 });
            return res.status !== 429 ? res : undefined;
          },
          { timeoutMs: 50_000, intervalMs: 100 },
        ),
      ),
    );
    const statuses = all.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(10);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(0);
    expect(new Set(all.filter((r) => r.status === 200).map((r) => r.json.receipt_id)).size).toBe(10);
  });
});

describe('idempotency in progress and crash recovery', () => {
  test('a running key is 409 idempotency_in_progress; a crashed one is taken over without a second charge', async () => {
    const t = await createTenant({ credits: 20 });
    const person = await poolPerson();
    const k = key();
    const fingerprint = requestFingerprint('profiles.unlock', 'POST', '/v1/profiles/unlock', { person_id: person._id }, t);
    const now = Date.now();
    const recordId = idempotencyRecordId(t.orgId, t.workspaceId, k);
    const claim = { orgId: t.orgId, workspaceId: t.workspaceId, key: k, nonce: 'crashed-request-nonce' };
    await srv.deps.stores.idempotency.insertClaim({
      _id: recordId,
      orgId: t.orgId,
      workspaceId: t.workspaceId,
      operation: 'profiles.unlock',
      fingerprint,
      nonce: claim.nonce,
      state: 'in_progress',
      owner: 'crashed',
      leaseUntil: new Date(now + 60_000),
      createdAt: new Date(now),
      expiresAt: new Date(now + 86_400_000),
    });
    const busy = await unlock(t, person._id, k);
    expectProblemResponse(busy, 409, 'idempotency_in_progress');
    expect(busy.headers['retry-after']).toBe('1');
    // The crashed worker had charged before it could answer.
    const first = await charge(srv.deps, {
      orgId: t.orgId,
      familyId: t.familyId,
      amount: 5,
      operation: 'profiles.unlock',
      chargeKey: unlockChargeKey(t.orgId, person._id),
      requestKey: claimChargeKey('profiles.unlock', claim),
    });
    expect(await creditBalance(srv.deps, t.orgId)).toBe(15);
    // The crashed request's lease lapses.
    await srv.deps.stores.idempotency.moveClaim(recordId, 'crashed', 'crashed', new Date(Date.now() - 1000));
    const res = await unlock(t, person._id, k);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ receipt_id: first.receiptId, credits_charged: 5, already_unlocked: false });
    expect(await creditBalance(srv.deps, t.orgId)).toBe(15);
    const again = await unlock(t, person._id, k);
    expect(again.text).toBe(res.text);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });
});

describe('POST /v1/profiles/unlock', () => {
  test('the full profile for 5 credits, free the second time; 404 for unknown or not-enabled people', async () => {
    const t = await createTenant({ credits: 12 });
    const person = await poolPerson();
    const res = await unlock(t, person._id);
    expect(res.status).toBe(200);
    expect(res.json.profile).toMatchObject({ person_id: person._id, name: person.fullName, skills: person.skills, profile_url: person.profileUrl });
    expect(res.json.profile.positions.length).toBeGreaterThan(0);
    expect(res.json.profile.positions[0]).toMatchObject({ end: null, current: true });
    expect(res.json).toMatchObject({ credits_charged: 5, already_unlocked: false, receipt_id: expect.stringMatching(/^rcpt_/) });
    expect(res.text).not.toMatch(/@|"emails"|"phones"/);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(7);
    const second = await unlock(t, person._id);
    expect(second.json).toMatchObject({ credits_charged: 0, already_unlocked: true, receipt_id: null });
    expect(await creditBalance(srv.deps, t.orgId)).toBe(7);
    expectProblemResponse(await unlock(t, 'per_' + 'Z'.repeat(22)), 404, 'not_found');
    expectProblemResponse(await unlock(t, 'nonsense'), 404, 'not_found');
    const hidden = (await srv.deps.stores.talent.peopleOfSource(OPEN_WEB_SOURCE_ID, { limit: 1 }))[0];
    expectProblemResponse(await unlock(t, hidden._id), 404, 'not_found');
    await setSourceEnabled(fileStores(), srv.config, t.orgId, OPEN_WEB_SOURCE_ID, true);
    expect((await unlock(t, hidden._id)).status).toBe(200);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(2);
    expectProblemResponse(await unlock(t, (await poolPerson([person._id]))._id), 402, 'insufficient_credits');
    expect(await creditBalance(srv.deps, t.orgId)).toBe(2);
  });

  test('two keys unlocking the same new person at once pay once: one answer carries the receipt, the others are free', async () => {
    const t = await createTenant({ credits: 50 });
    const other = await addKey(t, [PERMISSIONS.profilesUnlock]);
    const person = await poolPerson();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        api(srv.url, 'POST', '/v1/profiles/unlock', { key: i % 2 ? other.key : t.key, body: { person_id: person._id }, idempotencyKey: key() }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const paid = answers.filter((a) => a.json.credits_charged === 5);
    expect(paid).toHaveLength(1);
    expect(paid[0].json).toMatchObject({ already_unlocked: false, receipt_id: expect.stringMatching(/^rcpt_/) });
    for (const a of answers.filter((x) => x !== paid[0])) expect(a.json).toMatchObject({ credits_charged: 0, already_unlocked: true, receipt_id: null });
    expect(await creditBalance(srv.deps, t.orgId)).toBe(45);
  });

  test('403 without the permission, 422 with an account id, 429 delivery_quota_exceeded charges nothing', async () => {
    const t = await createTenant({ credits: 100 });
    const k = await addKey(t, [PERMISSIONS.candidatesSearch]);
    const person = await poolPerson();
    expectProblemResponse(
      await api(srv.url, 'POST', '/v1/profiles/unlock', { key: k.key, body: { person_id: person._id }, idempotencyKey: key() }),
      403,
      'insufficient_scope',
    );
    expectProblemResponse(
      await api(srv.url, 'POST', '/v1/profiles/unlock', { key: t.key, body: { person_id: person._id, account_id: 'a' }, idempotencyKey: key() }),
      422,
      'validation_failed',
    );
    const people = await srv.deps.stores.talent.peopleOfSource('src_talentpool', { limit: 4 });
    for (const p of people.slice(0, 3)) expect((await unlock(t, p._id)).status).toBe(200);
    expect(await creditBalance(srv.deps, t.orgId)).toBe(85);
    const k4 = key();
    expectProblemResponse(await unlock(t, people[3]._id, k4), 429, 'delivery_quota_exceeded', { retryAfter: '1' });
    expect(await creditBalance(srv.deps, t.orgId)).toBe(85);
    // An already delivered person is not a new delivery.
    expect((await unlock(t, people[0]._id)).status).toBe(200);
  });
});

describe('POST /v1/person-matches', () => {
  test('strong identifiers match with high confidence, charged per match', async () => {
    const t = await createTenant({ credits: 10 });
    const person = await poolPerson();
    const byUrl = await match(t, { profile_url: person.profileUrl });
    expect(byUrl.status).toBe(200);
    expect(byUrl.json.data).toEqual([{ person_id: person._id, confidence: 0.99, matched_on: ['profile_url'] }]);
    expect(byUrl.json).toMatchObject({ credits_charged: 1, receipt_id: expect.stringMatching(/^rcpt_/) });
    const contact = (await srv.deps.stores.talent.providerContactWithEmail())!;
    const byEmail = await match(t, { email: contact.emails[0].toUpperCase(), min_confidence: 0.9 });
    expect(byEmail.json.data[0]).toMatchObject({ person_id: contact._id, matched_on: expect.arrayContaining(['email']) });
    expect(byEmail.json.data[0].confidence).toBeGreaterThanOrEqual(0.97);
    const byName = await match(t, { name: person.fullName, company: person.company, location: person.location!.city, min_confidence: 0.5 });
    expect(byName.status).toBe(200);
    const hit = byName.json.data.find((m: any) => m.person_id === person._id);
    expect(hit.matched_on).toEqual(expect.arrayContaining(['name', 'company', 'location']));
    expect(await creditBalance(srv.deps, t.orgId)).toBe(10 - 2 - byName.json.data.length);
  });

  test('funds for fewer matches than found: the best ones they cover are answered and charged', async () => {
    const byName = new Map<string, number>();
    for (const p of await srv.deps.stores.talent.peopleOfSource('src_talentpool', { limit: 10_000 })) byName.set(p.fullName, (byName.get(p.fullName) ?? 0) + 1);
    const [shared] = [...byName].filter(([, n]) => n >= 3).map(([name, n]) => ({ _id: name, n }));
    expect(shared).toBeDefined();
    const body = { name: shared._id, location: 'Nowhere At All', min_confidence: 0.4, limit: 10 };
    const rich = await createTenant({ credits: 10 });
    const all = await match(rich, body);
    expect(all.json.data.length).toBeGreaterThanOrEqual(3);
    const t = await createTenant({ credits: 2 });
    const some = await match(t, body);
    expect(some.status).toBe(200);
    expect(some.json).toMatchObject({ credits_charged: 2, no_match: null });
    expect(some.json.data).toEqual(all.json.data.slice(0, 2));
    expect(await creditBalance(srv.deps, t.orgId)).toBe(0);
  });

  test('no match is free and says why; too little to identify is 422; unfunded matches are 402 whatever the fields', async () => {
    const funded = await createTenant({ credits: 1 });
    const none = await match(funded, { email: 'nobody@nowhere.example' });
    expect(none.status).toBe(200);
    expect(none.json).toEqual({ data: [], credits_charged: 0, receipt_id: null, no_match: { best_confidence: null, min_confidence: 0.8 } });
    const someone = await poolPerson();
    const below = await match(funded, { name: someone.fullName, company: someone.company });
    expect(below.json).toMatchObject({ data: [], credits_charged: 0, no_match: { best_confidence: 0.7, min_confidence: 0.8 } });
    // A strong identifier below the threshold is not told for free.
    const contact = (await srv.deps.stores.talent.providerContactWithEmail())!;
    const strict = await match(funded, { email: contact.emails[0], min_confidence: 1 });
    expect(strict.json).toEqual({ data: [], credits_charged: 0, receipt_id: null, no_match: { best_confidence: null, min_confidence: 1 } });
    expect(await creditBalance(srv.deps, funded.orgId)).toBe(1);
    const t = await createTenant({ credits: 0 });
    expectProblemResponse(await match(t, { email: 'nobody@nowhere.example' }), 402, 'insufficient_credits');
    expectProblemResponse(await match(t, { name: 'Ada Lovelace' }), 422, 'validation_failed');
    expectProblemResponse(await match(t, { company: 'Acme Labs', title: 'Engineer' }), 422, 'validation_failed');
    expectProblemResponse(await match(t, { email: 'x@y.example', min_confidence: 2 }), 422, 'validation_failed');
    expectProblemResponse(await match(t, { email: 'x@y.example', workspace_id: t.workspaceId }), 422, 'validation_failed');
    // An address no mail system delivers to (65 octets before the @, RFC 5321) is refused, not looked up.
    const overLong = await match(t, { email: `${'a'.repeat(65)}@y.example` });
    expectProblemResponse(overLong, 422, 'validation_failed');
    expect(JSON.stringify(overLong.json)).toContain('at most 64 characters before the @');
    const person = await poolPerson();
    expectProblemResponse(await match(t, { profile_url: person.profileUrl }), 402, 'insufficient_credits');
    const k = await addKey(t, [PERMISSIONS.candidatesSearch]);
    expectProblemResponse(
      await api(srv.url, 'POST', '/v1/person-matches', { key: k.key, body: { profile_url: person.profileUrl }, idempotencyKey: key() }),
      403,
      'insufficient_scope',
    );
  });
});
