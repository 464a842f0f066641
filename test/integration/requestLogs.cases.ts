import { createTenant, insertTestPeople, type TestTenant } from '../support/fixtures';
import { api, rawRequest } from '../support/http';
import { startApiProcess, type ApiProcess } from '../support/apiProcess';
import { testConfig } from '../support/testConfig';
import { eventually } from '../support/eventually';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createClient } from '../../core/oauth/clients';
import type { TestApi } from '../support/testApi';
import { OAUTH_ENV, clientCredentialsToken, discover } from './oauthTestClient';
import { fileStores, openTestStore, type TestStore } from '../support/testStore';

let testStore: TestStore;
let proc: ApiProcess;
let tenant: TestTenant;

beforeAll(async () => {
  const config = testConfig();
  testStore = await openTestStore(config);
  tenant = await createTenant();
  proc = await startApiProcess(config, { ...OAUTH_ENV, API_WARM_START: 'false' });
});
afterAll(async () => {
  await proc.stop();
  await testStore.close();
});

type LogRecord = Record<string, any>;

/**
 * The API's JSON log lines once one of them is `seen`. A request's line is written as its
 * response ends, a moment after the client has it: wait for the line of the last request
 * instead of a fixed pause.
 */
function logLinesOnceSeen(what: string, seen: (r: LogRecord) => boolean): Promise<LogRecord[]> {
  return eventually(
    what,
    () => {
      const parsed: LogRecord[] = proc
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l));
      return parsed.some(seen) ? parsed : undefined;
    },
    { timeoutMs: 10_000 },
  );
}

describe('structured request logs', () => {
  test('one JSON line per request with the fields, never credentials, bodies or query text', async () => {
    const ok = await api(proc.url, 'GET', '/v1/whoami?trace=confidential-query-text', { key: tenant.key, headers: { 'X-Request-Id': 'log-test-1' } });
    expect(ok.status).toBe(200);
    await api(proc.url, 'POST', '/v1/whoami', { key: tenant.key, body: { name: 'Private Person Payload' } });
    await rawRequest(proc.url, { path: '/v1/whoami', headers: { Authorization: `Bearer ${tenant.key}x` } });
    const records = await logLinesOnceSeen('the log line of the last request', (r) => r.msg === 'request' && r.status === 401);
    const entry = records.find((r) => r.request_id === 'log-test-1');
    expect(entry).toMatchObject({ msg: 'request', method: 'GET', route: '/v1/whoami', status: 200, key_id: tenant.keyId });
    expect(typeof entry?.duration_ms).toBe('number');
    expect(records.map((r) => `${r.status}`)).toContain('401');

    const all = proc.output();
    expect(all).not.toContain(tenant.key);
    expect(all).not.toContain(tenant.key.slice(12));
    expect(all).not.toContain('confidential-query-text');
    expect(all).not.toContain('Private Person Payload');
  });

  test('a request authentication refuses is logged under the route it matched; an unknown path as unmatched', async () => {
    await rawRequest(proc.url, { path: '/v1/whoami', headers: { 'X-Request-Id': 'log-no-key' } });
    await rawRequest(proc.url, { path: '/v1/whoami', headers: { Authorization: `Bearer ${tenant.key}x`, 'X-Request-Id': 'log-bad-key' } });
    await rawRequest(proc.url, { path: '/v1/contact-retrieval-jobs/job_missing', headers: { 'X-Request-Id': 'log-param-no-key' } });
    await rawRequest(proc.url, { path: '/v1/no-such-thing', headers: { Authorization: `Bearer ${tenant.key}`, 'X-Request-Id': 'log-unknown' } });
    const records = await logLinesOnceSeen('the log line of the unknown path', (r) => r.msg === 'request' && r.request_id === 'log-unknown');
    const byId = (id: string) => records.find((r) => r.request_id === id && r.msg === 'request');
    expect(byId('log-no-key')).toMatchObject({ method: 'GET', route: '/v1/whoami', status: 401 });
    expect(byId('log-bad-key')).toMatchObject({ method: 'GET', route: '/v1/whoami', status: 401 });
    expect(byId('log-param-no-key')).toMatchObject({ method: 'GET', route: '/v1/contact-retrieval-jobs/:id', status: 401 });
    expect(byId('log-unknown')).toMatchObject({ route: 'unmatched', status: 404, path: '/v1/no-such-thing' });
    // Only unmatched requests carry their path (a matched one has its route template).
    expect(byId('log-no-key')!.path).toBeUndefined();
  });

  test("a job create's line carries the job_id it made, its replay's too", async () => {
    const personId = `per_logtest${Date.now()}`;
    await insertTestPeople(testStore.stores, [personId]);
    const funded = await createTenant({ credits: 10 });
    const idempotencyKey = `log-job-${Date.now()}`;
    const create = (requestId: string) =>
      api(proc.url, 'POST', '/v1/contact-retrieval-jobs', {
        key: funded.key,
        body: { person_ids: [personId], fields: ['email'] },
        headers: { 'Idempotency-Key': idempotencyKey, 'X-Request-Id': requestId },
      });
    const created = await create('log-job-create');
    expect(created.status).toBe(202);
    expect((await create('log-job-replay')).json.job_id).toBe(created.json.job_id);
    const records = await logLinesOnceSeen('the line of the replay', (r) => r.msg === 'request' && r.request_id === 'log-job-replay');
    for (const id of ['log-job-create', 'log-job-replay']) {
      const line = records.find((r) => r.request_id === id && r.msg === 'request');
      expect(line).toMatchObject({ route: '/v1/contact-retrieval-jobs', status: 202, job_id: created.json.job_id });
      expect(JSON.stringify(line)).not.toContain(personId);
    }
  });
  test('a job id and a tool name are searchable across a run: every line of the job carries job_id, every /tools line its tool, client and error code', async () => {
    const personId = `per_loggrep${Date.now()}`;
    await insertTestPeople(testStore.stores, [personId]);
    const funded = await createTenant({ credits: 10 });
    const created = await api(proc.url, 'POST', '/v1/contact-retrieval-jobs', {
      key: funded.key,
      body: { person_ids: [personId], fields: ['email'] },
      headers: { 'Idempotency-Key': `log-grep-${Date.now()}` },
    });
    expect(created.status).toBe(202);
    const jobId: string = created.json.job_id;
    await api(proc.url, 'GET', `/v1/contact-retrieval-jobs/${jobId}`, { key: funded.key });
    await api(proc.url, 'GET', `/v1/job-results/${jobId}`, { key: funded.key });
    await api(proc.url, 'POST', `/v1/contact-retrieval-jobs/${jobId}/cancel`, { key: funded.key });
    await rawRequest(proc.url, { path: `/v1/contact-retrieval-jobs/${jobId}` }); // refused before routing: 401
    await api(proc.url, 'GET', '/v1/webhook-endpoints/ep_lognone', { key: funded.key });
    await api(proc.url, 'GET', '/v1/webhook-deliveries/dlv_lognone', { key: funded.key });

    const m2m = await createClient(fileStores(), { orgId: funded.orgId, rateLimitPerMinute: 1000 }, new Date());
    const srv = { url: proc.url } as TestApi;
    const token = (await clientCredentialsToken(srv, await discover(srv), m2m.client_id, m2m.client_secret)).access_token;
    const client = new Client({ name: 'log-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${proc.url}/tools`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    const read = await client.callTool({ name: 'whoami', arguments: {} });
    expect(read.isError).toBeFalsy();
    const failed = await client.callTool({ name: 'unlock_profile', arguments: { person_id: 'per_nobody_logtest' } });
    expect(failed.isError).toBe(true);
    const failedCode = (failed.structuredContent as { code: string }).code;
    await client.close();

    const records = await logLinesOnceSeen('the failed tool call', (r) => r.msg === 'request' && r.tool === 'unlock_profile');
    const lines = records.filter((r) => r.msg === 'request');
    // The job's lines, by its id: create, read, result, cancel and the refused read.
    expect(
      lines
        .filter((r) => r.job_id === jobId)
        .map((r) => `${r.method} ${r.route} ${r.status}${r.tool ? ` ${r.tool}` : ''}`)
        .sort(),
    ).toEqual(
      expect.arrayContaining([
        'POST /v1/contact-retrieval-jobs 202',
        expect.stringMatching(/^GET \/v1\/contact-retrieval-jobs\/:id 200$/),
        expect.stringMatching(/^GET \/v1\/job-results\/:job_id \d+$/),
        expect.stringMatching(/^POST \/v1\/contact-retrieval-jobs\/:id\/cancel \d+$/),
        'GET /v1/contact-retrieval-jobs/:id 401',
      ]),
    );
    expect(lines.find((r) => r.route === '/v1/webhook-endpoints/:id')).toMatchObject({ endpoint_id: 'ep_lognone' });
    expect(lines.find((r) => r.route === '/v1/webhook-deliveries/:id')).toMatchObject({ delivery_id: 'dlv_lognone' });

    const toolLines = lines.filter((r) => r.route === '/tools' && r.tool);
    expect(toolLines.find((r) => r.tool === 'whoami')).toMatchObject({ client_id: m2m.client_id, mcp_method: 'tools/call', status: 200 });
    expect(toolLines.find((r) => r.tool === 'whoami')!.code).toBeUndefined();
    expect(toolLines.find((r) => r.tool === 'unlock_profile')).toMatchObject({ client_id: m2m.client_id, code: failedCode });
    // Every /tools line names its client, listing and handshake included.
    for (const line of lines.filter((r) => r.route === '/tools')) expect(line.client_id).toBe(m2m.client_id);
  });
});
