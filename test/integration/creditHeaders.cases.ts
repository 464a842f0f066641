import { creditBalance, LedgerHeads, setBudget } from '../../core/credits/credits';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { createTenant, type TestTenant } from '../support/fixtures';
import { api, type HttpResponse } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';

let srv: TestApi;
/** The app's ledger heads: a budget set through them is one the app itself saw set (as its console's is). */
const ledgerHeads = new LedgerHeads();
let n = 0;
const idem = () => `credit-headers-${Date.now()}-${++n}`;

beforeAll(async () => {
  srv = await startTestApi({}, undefined, { ledgerHeads });
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 200 });
});
afterAll(async () => srv.close());

/** The credit headers of an answer, against the balance the store holds once it is sent. */
async function expectCredits(res: HttpResponse, t: TestTenant, charged: number): Promise<void> {
  expect({ status: res.status, charged: res.headers['credits-charged'], remaining: res.headers['credits-remaining'] }).toEqual({
    status: res.status,
    charged: String(charged),
    remaining: String(await creditBalance(srv.deps, t.orgId)),
  });
}

/** A paid call: `prepare` makes its body (before any budget is set), `call` sends it. */
interface PaidCall {
  prepare: (t: TestTenant) => Promise<unknown> | unknown;
  call: (t: TestTenant, body: unknown, key: string) => Promise<HttpResponse>;
}
const post = (path: string, prepare: PaidCall['prepare']): PaidCall => ({
  prepare,
  call: (t, body, key) => api(srv.url, 'POST', path, { key: t.key, body, idempotencyKey: key }),
});

const poolPerson = async () => (await srv.deps.stores.talent.peopleOfSource('src_talentpool', { limit: 1 }))[0];

/** Each paid operation, what its first answer charges, and its success status. */
const PAID: Array<{ name: string; paid: PaidCall; status: number; charged: number }> = [
  { name: 'candidate search', paid: post('/v1/candidates/search', () => ({ query: 'manager', page_size: 5 })), status: 200, charged: 1 },
  { name: 'profile unlock', paid: post('/v1/profiles/unlock', async () => ({ person_id: (await poolPerson())._id })), status: 200, charged: 5 },
  { name: 'person match', paid: post('/v1/person-matches', async () => ({ profile_url: (await poolPerson()).profileUrl })), status: 200, charged: 1 },
  // A job is charged as it pays for its chunks while it runs, never when it is accepted.
  {
    name: 'contact-retrieval job',
    paid: post('/v1/contact-retrieval-jobs', async () => ({ person_ids: [(await poolPerson())._id] })),
    status: 202,
    charged: 0,
  },
  {
    name: 'batch contact-retrieval job',
    paid: post('/v1/contact-retrieval-jobs/batch', async (t) => {
      const found = await api(srv.url, 'POST', '/v1/candidates/search', { key: t.key, body: { query: 'engineer', page_size: 2 }, idempotencyKey: idem() });
      expect(found.status).toBe(200);
      return { search_id: found.json.search_id, limit: 2 };
    }),
    status: 202,
    charged: 0,
  },
];

describe.each(PAID)('credit headers of $name', ({ paid, status, charged }) => {
  test('its answer says what it charged and the balance after it; its replay charged nothing', async () => {
    const t = await createTenant({ credits: 20 });
    const body = await paid.prepare(t);
    const key = idem();
    const first = await paid.call(t, body, key);
    expect(first.status).toBe(status);
    await expectCredits(first, t, charged);
    if (first.json?.credits_charged !== undefined) expect(first.json.credits_charged).toBe(charged);

    const replay = await paid.call(t, body, key);
    expect(replay.status).toBe(status);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await expectCredits(replay, t, 0);
  });

  test('its 402 charged nothing and reports the balance it left untouched', async () => {
    const t = await createTenant({ credits: 20 });
    const body = await paid.prepare(t);
    const before = await creditBalance(srv.deps, t.orgId);
    await setBudget(srv.deps, { orgId: t.orgId, amount: 0 });
    const refused = await paid.call(t, body, idem());
    expect({ status: refused.status, code: refused.json.code }).toEqual({ status: 402, code: 'organization_budget_exhausted' });
    await expectCredits(refused, t, 0);
    expect(refused.headers['credits-remaining']).toBe(String(before));
  });
});

test('other answers of a paid operation carry the headers too; answers of free operations do not', async () => {
  const t = await createTenant({ credits: 7 });
  const invalid = await api(srv.url, 'POST', '/v1/person-matches', { key: t.key, body: { name: 'Ada Lovelace' }, idempotencyKey: idem() });
  expect(invalid.status).toBe(422);
  await expectCredits(invalid, t, 0);
  expect(invalid.headers['credits-remaining']).toBe('7');

  const whoami = await api(srv.url, 'GET', '/v1/whoami', { key: t.key });
  expect(whoami.status).toBe(200);
  expect(whoami.headers['credits-charged']).toBeUndefined();
  expect(whoami.headers['credits-remaining']).toBeUndefined();
});

test('an unlock already paid for is a free answer', async () => {
  const t = await createTenant({ credits: 20 });
  const person = await poolPerson();
  const unlock = () => api(srv.url, 'POST', '/v1/profiles/unlock', { key: t.key, body: { person_id: person._id }, idempotencyKey: idem() });
  await expectCredits(await unlock(), t, 5);
  const again = await unlock();
  expect(again.json.already_unlocked).toBe(true);
  await expectCredits(again, t, 0);
  expect(again.headers['credits-remaining']).toBe('15');
});
