import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '../../core/oauth/clients';
import { newSessionValue } from '../../core/users/sessions';
import { cookieSettings } from '../../api/views/pageSecurity';
import { CONNECTIONS_PAGE_PATH } from '../../api/oauth/pagePaths';
import { freePort, startFerretDb, type RunningService } from '../../scripts/localServices';
import { createTenant, insertTestPeople, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { OAUTH_ENV, clientCredentialsToken, discover } from './oauthTestClient';
import { expectProblemResponse } from '../support/problems';
import { fileStores } from '../support/testStore';

/**
 * The store stopped for real (a FerretDB of this file's own, SIGKILLed): every surface answers
 * 503 with Retry-After at once, in its own format, and never 500.
 */
let dir: string;
let store: RunningService;
let srv: TestApi;
let tenant: TestTenant;
let m2m: { client_id: string; client_secret: string };
let token: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'store-outage-'));
  const port = await freePort();
  store = await startFerretDb({ port, dataDir: join(dir, 'data'), logFile: join(dir, 'ferretdb.log') });
  srv = await startTestApi({ ...OAUTH_ENV, MONGODB_URI: `mongodb://127.0.0.1:${port}/outage` });
  tenant = await createTenant({ credits: 1000 });
  await insertTestPeople(srv.deps.stores, ['per_outage_1']);
  m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 1000 }, new Date());
  token = (await clientCredentialsToken(srv, await discover(srv), m2m.client_id, m2m.client_secret)).access_token;
  store.child.kill('SIGKILL');
  await new Promise((r) => store.child.once('exit', r));
});

afterAll(async () => {
  await srv?.close();
  await store?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Answers within 2 s (a request waits at most the store's selection time), 503, Retry-After. */
function expectOutage(res: { status: number; headers: Record<string, string | string[] | undefined> | Headers }, ms: number) {
  const retryAfter = res.headers instanceof Headers ? res.headers.get('retry-after') : res.headers['retry-after'];
  expect({ status: res.status, retryAfter: Number(retryAfter) > 0, fast: ms < 2_000 }).toEqual({ status: 503, retryAfter: true, fast: true });
}

async function timed<T>(call: () => Promise<T>): Promise<[T, number]> {
  const t0 = Date.now();
  const r = await call();
  return [r, Date.now() - t0];
}

test.each([
  ['whoami', 'GET', '/v1/whoami', undefined],
  ['search', 'POST', '/v1/candidates/search', { query: 'engineer' }],
  ['unlock', 'POST', '/v1/profiles/unlock', { person_id: 'per_outage_1' }],
  ['operational limits', 'GET', '/v1/operational-limits', undefined],
  ['job create', 'POST', '/v1/contact-retrieval-jobs', { person_ids: ['per_outage_1'], fields: ['email'] }],
])('%s: 503 dependency_unavailable problem document with Retry-After', async (_name, method, path, body) => {
  const [res, ms] = await timed(() => api(srv.url, method, path, { key: tenant.key, body, idempotencyKey: method === 'POST' ? randomUUID() : undefined }));
  expectOutage(res, ms);
  expectProblemResponse(res, 503, 'dependency_unavailable');
});

test('the token endpoint: 503 in the OAuth error shape with Retry-After', async () => {
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: m2m.client_id, client_secret: m2m.client_secret, scope: 'mcp:tools' });
  const [res, ms] = await timed(() =>
    fetch(`${srv.url}/api/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form }),
  );
  expectOutage(res, ms);
  expect(await res.json()).toMatchObject({ error: 'temporarily_unavailable', code: 'dependency_unavailable' });
});

test('a /tools call: a JSON-RPC error with HTTP 503 and Retry-After', async () => {
  const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'unlock_profile', arguments: { person_id: 'per_outage_1' } } };
  const [res, ms] = await timed(() =>
    fetch(`${srv.url}/tools`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-06-18',
      },
      body: JSON.stringify(call),
    }),
  );
  expectOutage(res, ms);
  const body = JSON.parse(await res.text());
  expect(body).toMatchObject({ jsonrpc: '2.0', error: { code: -32000, data: { code: 'dependency_unavailable', retry_after: 2 } } });
});

test('a sign-in page: an HTML page saying so, 503 with Retry-After', async () => {
  const cookie = `${cookieSettings(srv.config).name}=${newSessionValue()}`;
  const [res, ms] = await timed(() => fetch(`${srv.url}${CONNECTIONS_PAGE_PATH}`, { headers: { Cookie: cookie } }));
  expectOutage(res, ms);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(await res.text()).toContain('cannot reach its data store');
});
