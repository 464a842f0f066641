import { CLIENT_RATE_WINDOW_MS, windowStartOf } from '../../core/oauth/clientRateLimit';
import { createClient } from '../../core/oauth/clients';
import { creditBalance } from '../../core/credits/credits';
import { seedPeople } from '../../core/talent/seedPeople';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startTestApi, type TestApi } from '../support/testApi';
import { OAUTH_ENV, clientCredentialsToken, discover } from './oauthTestClient';

// Service start-up is slow on a loaded 2-core machine; the project-level testTimeout is not applied.
jest.setTimeout(120_000);

/**
 * The client rate of an M2M credential counts tool calls (SPEC 5.2 item 5): one JSON-RPC batch
 * could carry up to 100 tools/call past a rate that counts HTTP requests, so batches are refused.
 */
let srv: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  srv = await startTestApi(OAUTH_ENV);
  tenant = await createTenant({ credits: 100 });
  await seedPeople({ secretsKey: srv.config.secretsKey, count: 50 });
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

/** The client rate is a window aligned to wall-clock minutes: start the test well inside one. */
async function awayFromMinuteBoundary(marginMs: number): Promise<void> {
  const left = windowStartOf(Date.now()) + CLIENT_RATE_WINDOW_MS - Date.now();
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

test('a batch of N tools/call over a client with rate R < N runs none of them; single calls are counted one by one', async () => {
  const rate = 3;
  const calls = 10;
  const m2m = await createClient({ orgId: tenant.orgId, rateLimitPerMinute: rate });
  await awayFromMinuteBoundary(30_000);
  const minute = windowStartOf(Date.now());
  // The token request is the first of the minute's R requests.
  const token = (await clientCredentialsToken(srv, await discover(srv), m2m.client_id, m2m.client_secret)).access_token;
  const before = await creditBalance(tenant.orgId);

  const batch = await postTools(
    token,
    Array.from({ length: calls }, (_, i) => searchCall(i + 1)),
  );
  expect(batch.status).toBe(400);
  expect(await batch.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringContaining('batches are not accepted') } });
  expect(await creditBalance(tenant.orgId)).toBe(before);

  // The third request of the minute: one call, run and charged.
  const single = await postTools(token, searchCall(100));
  expect(single.status).toBe(200);
  const answer = (await single.json()) as { result: { isError: boolean; structuredContent: { credits_charged: number } } };
  expect(answer.result.isError).toBe(false);
  expect(answer.result.structuredContent.credits_charged).toBe(1);
  expect(await creditBalance(tenant.orgId)).toBe(before - 1);

  // The rate is used up: the next call is refused before it runs.
  const over = await postTools(token, searchCall(101));
  expect(over.status).toBe(429);
  expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(await creditBalance(tenant.orgId)).toBe(before - 1);
  expect(windowStartOf(Date.now())).toBe(minute);
});
