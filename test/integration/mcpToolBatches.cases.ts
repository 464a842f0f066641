import { windowStartOf } from '../../core/oauth/clientRateLimit';
import { createClient } from '../../core/oauth/clients';
import { creditBalance } from '../../core/credits/credits';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startTestApi, type TestApi } from '../support/testApi';
import { OAUTH_ENV, clientCredentialsToken, discover } from './oauthTestClient';
import { fileStores } from '../support/testStore';

/**
 * The client rate of an M2M credential counts tool calls (SPEC 5.2 item 5): one JSON-RPC batch
 * could carry up to 100 tools/call past a rate that counts HTTP requests, so batches are refused.
 */
let srv: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  srv = await startTestApi(OAUTH_ENV);
  tenant = await createTenant({ credits: 100 });
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 50 });
});
afterAll(async () => srv.close());

const searchCall = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {
    name: 'search_candidates',
    arguments: { filters: { min_years_experience: 0 }, page_size: 5, idempotency_key: `batch-search-${String(id).padStart(4, '0')}` },
  },
});

function postTools(token: string, message: unknown) {
  return fetch(`${srv.url}/tools`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify(message),
  });
}

/**
 * The client rate is a window aligned to wall-clock minutes (the API reads the wall clock). A
 * run takes about a second: one that crossed a minute boundary is run again with a new client,
 * instead of waiting for the middle of a minute before each run.
 */
async function withinOneMinute<T>(run: (attempt: number) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    const minute = windowStartOf(Date.now());
    const facts = await run(attempt);
    if (windowStartOf(Date.now()) === minute || attempt === 2) return facts;
  }
}

test('a batch of N tools/call over a client with rate R < N runs none of them; single calls are counted one by one', async () => {
  const rate = 3;
  const calls = 10;
  const facts = await withinOneMinute(async (attempt) => {
    // Each attempt its own idempotency keys, so a rerun's call is run and charged, not replayed.
    const call = (id: number) => searchCall(attempt * 1000 + id);
    const m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: rate }, new Date());
    // The token request is the first of the minute's R requests.
    const token = (await clientCredentialsToken(srv, await discover(srv), m2m.client_id, m2m.client_secret)).access_token;
    const before = await creditBalance(srv.deps, tenant.orgId);
    const batch = await postTools(
      token,
      Array.from({ length: calls }, (_, i) => call(i + 1)),
    );
    const afterBatch = { status: batch.status, body: await batch.json(), spent: before - (await creditBalance(srv.deps, tenant.orgId)) };
    // The third request of the minute: one call, run and charged.
    const single = await postTools(token, call(100));
    const afterSingle = { status: single.status, body: await single.json(), spent: before - (await creditBalance(srv.deps, tenant.orgId)) };
    // The rate is used up: the next call is refused before it runs.
    const over = await postTools(token, call(101));
    const afterOver = {
      status: over.status,
      retryAfter: Number(over.headers.get('retry-after')),
      spent: before - (await creditBalance(srv.deps, tenant.orgId)),
    };
    return { afterBatch, afterSingle, afterOver };
  });

  const { afterBatch, afterSingle, afterOver } = facts;
  expect(afterBatch.status).toBe(400);
  expect(afterBatch.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('batches are not accepted') } });
  expect(afterBatch.spent).toBe(0);

  expect(afterSingle.status).toBe(200);
  const answer = afterSingle.body as { result: { isError: boolean; structuredContent: { credits_charged: number } } };
  expect(answer.result.isError).toBe(false);
  expect(answer.result.structuredContent.credits_charged).toBe(1);
  expect(afterSingle.spent).toBe(1);

  expect(afterOver.status).toBe(429);
  expect(afterOver.retryAfter).toBeGreaterThanOrEqual(1);
  expect(afterOver.spent).toBe(1);
});
