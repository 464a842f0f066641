import { creditBalance, setBudget } from '../../core/credits/credits';
import { storeSearch } from '../../core/talent/searches';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { createTenant, type TestTenant } from '../support/fixtures';
import { api, type HttpResponse } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';

/**
 * An organization that cannot pay learns nothing about the dataset: every paid operation
 * checks the funds for its smallest answer before it looks anything up, so what exists and
 * what does not get the very same refusal.
 */
let srv: TestApi;
let n = 0;
const idem = () => `oracle-${Date.now()}-${++n}`;

beforeAll(async () => {
  srv = await startTestApi();
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 200 });
});
afterAll(async () => srv.close());

const post = (t: TestTenant, path: string, body: unknown) => api(srv.url, 'POST', path, { key: t.key, body, idempotencyKey: idem() });

/** The problem body without what names the request. */
function refusal(res: HttpResponse): Record<string, unknown> {
  expect(res.status).toBe(402);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const { request_id: _r, instance: _i, ...rest } = res.json as Record<string, unknown>;
  return rest;
}

/** Both requests are refused with byte-identical bodies (apart from the request id), and nothing is charged. */
async function expectSameRefusal(t: TestTenant, path: string, known: unknown, unknown: unknown, code = 'insufficient_credits') {
  const before = (await srv.deps.stores.credits.ledgerEntriesOfOrgs([t.orgId])).filter((e) => e.kind === 'charge').length;
  const a = await post(t, path, known);
  const b = await post(t, path, unknown);
  const ra = refusal(a);
  expect(ra.code).toBe(code);
  expect(JSON.stringify(ra)).toBe(JSON.stringify(refusal(b)));
  expect(a.text.replaceAll(String(a.json.request_id), '')).toBe(b.text.replaceAll(String(b.json.request_id), ''));
  expect((await srv.deps.stores.credits.ledgerEntriesOfOrgs([t.orgId])).filter((e) => e.kind === 'charge').length).toBe(before);
  return ra;
}

describe('0 credits: the same 402 whatever the data holds', () => {
  test('person match by an email, phone or profile that exists and by ones that do not', async () => {
    const t = await createTenant({ credits: 0 });
    const contact = (await srv.deps.stores.talent.providerContactWithEmail({ phone: true }))!;
    const person = (await srv.deps.stores.talent.peopleByIds([contact._id]))[0];
    const r = await expectSameRefusal(t, '/v1/person-matches', { email: contact.emails[0] }, { email: 'nobody-at-all@nowhere.example' });
    // The price of one match, not the number of people the email belongs to.
    expect(r.required_credits).toBe(1);
    await expectSameRefusal(t, '/v1/person-matches', { phone: contact.phones[0] }, { phone: '+1 555 000 0000' });
    await expectSameRefusal(t, '/v1/person-matches', { profile_url: person.profileUrl }, { profile_url: 'https://profiles.example/nobody' });
    await expectSameRefusal(t, '/v1/person-matches', { name: person.fullName, company: person.company }, { name: 'Nobody Atall', company: 'Noco' });
  });

  test('a budget refuses the same way: organization_budget_exhausted for both', async () => {
    const t = await createTenant({ credits: 50 });
    await setBudget(srv.deps, { orgId: t.orgId, amount: 0 });
    const contact = (await srv.deps.stores.talent.providerContactWithEmail())!;
    await expectSameRefusal(t, '/v1/person-matches', { email: contact.emails[0] }, { email: 'nobody-at-all@nowhere.example' }, 'organization_budget_exhausted');
    expect(await creditBalance(srv.deps, t.orgId)).toBe(50);
  });

  test('profile unlock of a person who exists and of an id nobody has', async () => {
    const t = await createTenant({ credits: 4 });
    const person = (await srv.deps.stores.talent.peopleOfSource('src_talentpool', { limit: 1 }))[0];
    const r = await expectSameRefusal(t, '/v1/profiles/unlock', { person_id: person._id }, { person_id: 'per_doesnotexist000000' });
    expect(r.required_credits).toBe(5);
  });

  test('candidate search that finds people and one that finds nobody', async () => {
    const t = await createTenant({ credits: 0 });
    await expectSameRefusal(t, '/v1/candidates/search', { query: 'manager' }, { query: 'zzqxnomatchzzq' });
  });

  test('contact-retrieval jobs over people who exist and ids nobody has; batches over a search and over none', async () => {
    const t = await createTenant({ credits: 0 });
    const people = await srv.deps.stores.talent.peopleOfSource('src_talentpool', { limit: 3 });
    const r = await expectSameRefusal(
      t,
      '/v1/contact-retrieval-jobs',
      { person_ids: people.map((p) => p._id) },
      { person_ids: ['per_doesnotexist000001', 'per_doesnotexist000002', 'per_doesnotexist000003'] },
    );
    expect(r.required_credits).toBe(1);
    const search = await storeSearch(
      srv.deps.stores,
      {
        orgId: t.orgId,
        fingerprint: 'f'.repeat(64),
        params: { query: 'x', filters: {}, sources: ['src_talentpool'] },
        personIds: people.map((p) => p._id),
        total: people.length,
      },
      Date.now(),
    );
    await expectSameRefusal(t, '/v1/contact-retrieval-jobs/batch', { search_id: search.searchId }, { search_id: 'srch_doesnotexist0000' });
  });
});
