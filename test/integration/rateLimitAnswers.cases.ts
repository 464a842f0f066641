import { parseRateLimit } from '../../core/limits/rateLimitHeaders';
import { createTenant, type TestTenant } from '../support/fixtures';
import { rawRequest } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';

let srv: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  srv = await startTestApi();
  tenant = await createTenant({ credits: 100 });
});
afterAll(async () => srv.close());

/**
 * Every admitted /v1 answer reports its limits once: a route's answer with what its operation
 * found, and one that failed before its operation ran (an unreadable body) with the baseline's.
 */
describe('RateLimit headers on every admitted answer', () => {
  const policies = (header: string | string[] | undefined) => [...parseRateLimit(String(header)).keys()];

  test('an answered request', async () => {
    const res = await rawRequest(srv.url, { method: 'GET', path: '/v1/whoami', headers: { Authorization: `Bearer ${tenant.key}` } });
    expect(res.status).toBe(200);
    expect(policies(res.headers.ratelimit)).toEqual(['baseline', 'in_flight']);
    expect(String(res.headers['ratelimit-policy'])).toMatch(/^"baseline";q=\d+;w=1, "in_flight";q=\d+;qu="concurrent-requests"$/);
  });

  test('a request refused for its body after admission', async () => {
    const res = await rawRequest(srv.url, {
      method: 'POST',
      path: '/v1/candidates/search',
      headers: { Authorization: `Bearer ${tenant.key}`, 'Idempotency-Key': 'rate-limit-answers-1', 'Content-Type': 'application/json' },
      body: '{"query": ',
    });
    expect(res.status).toBe(400);
    expect(policies(res.headers.ratelimit)).toEqual(['baseline', 'in_flight']);
    expect(String(res.headers['ratelimit-policy'])).toContain('"baseline";q=');
  });
});
