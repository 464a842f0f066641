import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createClient } from '../../core/oauth/clients';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { BUILT_IN_SOURCE_ID } from '../../core/talent/sources';
import { eventually } from '../support/eventually';
import { createTenant } from '../support/fixtures';
import { startTestApi, type TestApi } from '../support/testApi';
import { startTestWorker, type TestWorker } from '../support/testWorker';
import { OAUTH_ENV, clientCredentialsToken, discover } from './oauthTestClient';
import { fileStores } from '../support/testStore';

/**
 * Every tool declares annotations true to what it does and an outputSchema; every tool's real
 * structured result, success or refusal, validates against it. The SDK clients validate
 * structuredContent against the listed outputSchema on each callTool and throw when it does
 * not match, so each call below is that check.
 */
let srv: TestApi;
let worker: TestWorker;
let token: string;
let person: { id: string; profileUrl: string };
let v1: Client;

beforeAll(async () => {
  srv = await startTestApi(OAUTH_ENV);
  worker = await startTestWorker(srv.config);
  const tenant = await createTenant({ credits: 1000 });
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 40 });
  const p = await srv.deps.stores.talent.firstPersonOfSource(BUILT_IN_SOURCE_ID);
  person = { id: String(p!._id), profileUrl: String(p!.profileUrl) };
  const m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 1000 }, new Date());
  token = (await clientCredentialsToken(srv, await discover(srv), m2m.client_id, m2m.client_secret)).access_token;
  v1 = new Client({ name: 'tool-outputs', version: '1.0.0' });
  await v1.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/tools`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
});
afterAll(async () => {
  await v1?.close();
  await worker?.stop();
  await srv?.close();
});

const PAID = ['search_candidates', 'unlock_profile', 'match_person', 'create_contact_retrieval_job'];

test('every tool has annotations and an outputSchema; paid tools are not read-only', async () => {
  const { tools } = await v1.listTools();
  expect(tools.length).toBeGreaterThanOrEqual(9);
  for (const t of tools) {
    expect({ name: t.name, annotations: t.annotations }).toEqual({
      name: t.name,
      annotations: expect.objectContaining({
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
        openWorldHint: expect.any(Boolean),
      }),
    });
    expect(t.outputSchema).toMatchObject({ type: 'object', anyOf: expect.any(Array) });
  }
  const byName = new Map(tools.map((t) => [t.name, t.annotations!]));
  for (const name of PAID) expect({ name, readOnly: byName.get(name)!.readOnlyHint }).toEqual({ name, readOnly: false });
  for (const name of ['whoami', 'list_sources', 'get_contact_retrieval_job', 'get_job_result'])
    expect({ name, readOnly: byName.get(name)!.readOnlyHint }).toEqual({ name, readOnly: true });
  expect(byName.get('cancel_contact_retrieval_job')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  expect(byName.get('create_contact_retrieval_job')).toMatchObject({ openWorldHint: true, idempotentHint: false });
});

test("each tool's structured result validates against its outputSchema (SDK 1.x client)", async () => {
  // The client validates against the schemas of its last tools/list.
  await v1.listTools();
  const ok = async (name: string, args: Record<string, unknown>) => {
    const r = await v1.callTool({ name, arguments: args });
    expect({ name, isError: r.isError ?? false, structured: typeof r.structuredContent }).toEqual({ name, isError: false, structured: 'object' });
    return r.structuredContent as Record<string, any>;
  };
  await ok('whoami', {});
  await ok('list_sources', {});
  const page = await ok('search_candidates', { filters: { min_years_experience: 0 }, page_size: 2, idempotency_key: 'tool-outputs-search-1' });
  expect(page.data.length).toBeGreaterThan(0);
  await ok('unlock_profile', { person_id: person.id, idempotency_key: 'tool-outputs-unlock-1' });
  const match = await ok('match_person', { profile_url: person.profileUrl, idempotency_key: 'tool-outputs-match-1' });
  expect(match.data[0]).toMatchObject({ person_id: person.id });
  const job = await ok('create_contact_retrieval_job', { person_ids: [person.id], idempotency_key: 'tool-outputs-job-1' });
  await eventually('the job to finish', async () => (await ok('get_contact_retrieval_job', { id: job.job_id })).status !== 'running', {
    timeoutMs: 60_000,
    intervalMs: 250,
  });
  const result = await ok('get_job_result', { job_id: job.job_id });
  expect(result.items).toHaveLength(1);
  // A refusal is a structured result too: the problem document, which the schema also describes.
  const refused = await v1.callTool({ name: 'cancel_contact_retrieval_job', arguments: { id: job.job_id } });
  expect(refused).toMatchObject({ isError: true, structuredContent: { code: 'invalid_state_transition', request_id: expect.any(String) } });
  const missing = await v1.callTool({ name: 'get_job_result', arguments: { job_id: 'job_doesnotexist0000000000' } });
  expect(missing).toMatchObject({ isError: true, structuredContent: { code: 'not_found' } });
});

test('the 2026-07-28 revision lists the same annotations and outputSchemas, and its results validate too (SDK 2.x client)', async () => {
  const v2 = new ClientV2({ name: 'tool-outputs-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await v2.connect(new TransportV2(new URL(`${srv.url}/tools`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  try {
    // Also what arms the client's output validation.
    const listed = (await v2.listTools()).tools.map((t) => ({ name: t.name, annotations: t.annotations, outputSchema: t.outputSchema }));
    expect(listed).toEqual((await v1.listTools()).tools.map((t) => ({ name: t.name, annotations: t.annotations, outputSchema: t.outputSchema })));
    const r = await v2.callTool({
      name: 'search_candidates',
      arguments: { filters: { min_years_experience: 0 }, page_size: 2, idempotency_key: 'tool-outputs-v2-1' },
    });
    expect(r.isError).toBeFalsy();
    expect((await v2.callTool({ name: 'whoami', arguments: {} })).isError).toBeFalsy();
  } finally {
    await v2.close();
  }
});
