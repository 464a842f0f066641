import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { listAuditEvents } from '../../core/audit/auditLog';
import { createClient } from '../../core/oauth/clients';
import { BUILT_IN_SOURCE_ID } from '../../core/talent/sources';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startTestApi, type TestApi } from '../support/testApi';
import { startTestWorker, type TestWorker } from '../support/testWorker';
import { OAUTH_ENV, clientCredentialsToken, discover } from './oauthTestClient';
import { eventually } from '../support/eventually';
import { fileStores } from '../support/testStore';

/** Job tools end to end: MCP client → /tools → the /v1 route pipeline → Temporal worker → result. */
let srv: TestApi;
let worker: TestWorker;
let tenant: TestTenant;
let personIds: string[];
let m2mClientId: string;

async function connect(clientId: string, secret: string): Promise<Client> {
  const token = (await clientCredentialsToken(srv, await discover(srv), clientId, secret)).access_token;
  const transport = new StreamableHTTPClientTransport(new URL(`${srv.url}/tools`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  const client = new Client({ name: 'job-tools-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

let mcp: Client;
beforeAll(async () => {
  srv = await startTestApi(OAUTH_ENV);
  worker = await startTestWorker(srv.config);
  tenant = await createTenant({ credits: 1000 });
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 60 });
  // Jobs accept only people of sources the organization may use: the built-in one here.
  personIds = await srv.deps.stores.talent.personIdsOfSourceAfter(BUILT_IN_SOURCE_ID, '', 30);
  expect(personIds).toHaveLength(30);
  const m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 1000 }, new Date());
  m2mClientId = m2m.client_id;
  mcp = await connect(m2m.client_id, m2m.client_secret);
});
afterAll(async () => {
  await mcp?.close();
  await worker?.stop();
  await srv?.close();
});

type Structured = Record<string, any>;
async function call(name: string, args: Record<string, unknown>, client = mcp): Promise<{ isError: boolean; body: Structured }> {
  const r = await client.callTool({ name, arguments: args });
  return { isError: Boolean(r.isError), body: r.structuredContent as Structured };
}

test('the job tools are listed with their route schemas', async () => {
  const { tools } = await mcp.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const n of ['create_contact_retrieval_job', 'get_contact_retrieval_job', 'get_job_result', 'cancel_contact_retrieval_job'])
    expect(byName.has(n)).toBe(true);
  expect(byName.get('create_contact_retrieval_job')!.inputSchema).toMatchObject({
    required: expect.arrayContaining(['person_ids']),
    properties: { person_ids: { type: 'array' }, idempotency_key: {} },
  });
});

test('create a job, replay it by idempotency key, follow it to its result', async () => {
  const args = { person_ids: personIds.slice(0, 5), fields: ['email', 'phone'], idempotency_key: 'mcp-job-test-0001' };
  const created = await call('create_contact_retrieval_job', args);
  expect(created.isError).toBe(false);
  expect(created.body).toMatchObject({ job_id: expect.stringMatching(/^job_/), counts: { requested: 5 } });
  const replay = await call('create_contact_retrieval_job', args);
  expect(replay.body.job_id).toBe(created.body.job_id);
  const conflict = await call('create_contact_retrieval_job', { ...args, person_ids: personIds.slice(0, 4) });
  expect(conflict.isError).toBe(true);
  expect(conflict.body.code).toBe('idempotency_key_reused');

  const job = await eventually(
    'the job to finish',
    async () => {
      const current = (await call('get_contact_retrieval_job', { id: created.body.job_id })).body;
      return current.status !== 'running' ? current : undefined;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  expect(['completed', 'partial']).toContain(job.status);
  const result = await call('get_job_result', { job_id: created.body.job_id });
  expect(result.isError).toBe(false);
  expect(result.body.job_id).toBe(created.body.job_id);
  expect(result.body.items).toHaveLength(5);

  const late = await call('cancel_contact_retrieval_job', { id: created.body.job_id });
  expect(late.isError).toBe(true);
  expect(late.body.code).toBe('invalid_state_transition');
}, 120_000);

test('cancel a running job', async () => {
  const created = await call('create_contact_retrieval_job', { person_ids: personIds.slice(5, 30) });
  expect(created.isError).toBe(false);
  const cancelled = await call('cancel_contact_retrieval_job', { id: created.body.job_id });
  // The job may have finished in between; either way the answer is about this job.
  if (cancelled.isError) expect(cancelled.body.code).toBe('invalid_state_transition');
  else expect(cancelled.body.job_id).toBe(created.body.job_id);
  // A cancel the tool server made is in the audit log as the M2M client's, with where it came from; a refused one is not.
  const entries = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'job.cancelled' })).data.filter(
    (e) => e.target === created.body.job_id,
  );
  if (cancelled.isError) expect(entries).toEqual([]);
  else expect(entries).toEqual([expect.objectContaining({ actor: `m2m:${m2mClientId}`, client_address: expect.stringMatching(/127\.0\.0\.1|::1/) })]);
});

test('tool errors are isError results carrying the problem code, and the session survives', async () => {
  const invalid = await call('create_contact_retrieval_job', { person_ids: ['nope'] });
  expect(invalid).toMatchObject({ isError: true, body: { code: 'validation_failed', status: 422 } });
  const missing = await call('get_contact_retrieval_job', { id: 'job_doesnotexist0000000000' });
  expect(missing).toMatchObject({ isError: true, body: { code: 'not_found' } });
  const narrow = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 100, permissions: ['candidates.search'] }, new Date());
  const narrowClient = await connect(narrow.client_id, narrow.client_secret);
  try {
    const denied = await call('create_contact_retrieval_job', { person_ids: personIds.slice(0, 1) }, narrowClient);
    expect(denied).toMatchObject({ isError: true, body: { code: 'insufficient_scope', status: 403 } });
  } finally {
    await narrowClient.close();
  }
  expect((await call('whoami', {})).isError).toBe(false);
});
