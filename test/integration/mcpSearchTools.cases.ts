import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createClient } from '../../core/oauth/clients';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { createTenant, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { OAUTH_ENV, clientCredentialsToken, discover } from './oauthTestClient';
import { fileStores } from '../support/testStore';

/** Search, sources, unlock and match tools end to end, beside the same developer-API calls. */
let srv: TestApi;
let tenant: TestTenant;
let mcp: Client;

type Structured = Record<string, any>;
/** A filter that every person satisfies: a search needs a query, a filter or a cursor. */
const SEARCH = { filters: { min_years_experience: 0 }, page_size: 5 };
async function call(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; body: Structured }> {
  const r = await mcp.callTool({ name, arguments: args });
  return { isError: Boolean(r.isError), body: r.structuredContent as Structured };
}

beforeAll(async () => {
  srv = await startTestApi(OAUTH_ENV);
  tenant = await createTenant({ credits: 1000 });
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 300 });
  const m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 1000 }, new Date());
  const token = (await clientCredentialsToken(srv, await discover(srv), m2m.client_id, m2m.client_secret)).access_token;
  mcp = new Client({ name: 'search-tools-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/tools`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
});
afterAll(async () => {
  await mcp?.close();
  await srv?.close();
});

test('every tool of the catalogue is listed once its route exists', async () => {
  const names = (await mcp.listTools()).tools.map((t) => t.name);
  expect(names).toEqual(
    expect.arrayContaining([
      'search_candidates',
      'list_sources',
      'unlock_profile',
      'match_person',
      'create_contact_retrieval_job',
      'get_contact_retrieval_job',
      'get_job_result',
      'cancel_contact_retrieval_job',
    ]),
  );
});

test('list_sources answers what GET /v1/search/sources answers', async () => {
  const viaTool = await call('list_sources', {});
  const viaApi = await api(srv.url, 'GET', '/v1/search/sources', { key: tenant.key });
  expect(viaTool.isError).toBe(false);
  expect(viaTool.body).toEqual(viaApi.json);
});

test('search_candidates returns the same people as the developer API and charges like it', async () => {
  const viaTool = await call('search_candidates', { ...SEARCH, idempotency_key: 'mcp-search-000001' });
  expect(viaTool.isError).toBe(false);
  const viaApi = await api(srv.url, 'POST', '/v1/candidates/search', { key: tenant.key, body: SEARCH, idempotencyKey: 'api-search-000001' });
  expect(viaApi.status).toBe(200);
  expect(viaTool.body.data.map((p: { person_id: string }) => p.person_id)).toEqual(viaApi.json.data.map((p: { person_id: string }) => p.person_id));
  expect(viaTool.body.credits_charged).toBe(viaApi.json.credits_charged);
  const replay = await call('search_candidates', { ...SEARCH, idempotency_key: 'mcp-search-000001' });
  expect(replay.body).toEqual(viaTool.body);
});

test('unlock_profile: charged once per idempotency key, and the organization then owns the unlock', async () => {
  const person = (await call('search_candidates', { ...SEARCH, page_size: 1 })).body.data[0].person_id;
  const first = await call('unlock_profile', { person_id: person, idempotency_key: 'mcp-unlock-000001' });
  expect(first.isError).toBe(false);
  expect(first.body.already_unlocked).toBe(false);
  expect(first.body.credits_charged).toBeGreaterThan(0);
  const replay = await call('unlock_profile', { person_id: person, idempotency_key: 'mcp-unlock-000001' });
  expect(replay.body).toEqual(first.body);
  const viaApi = await api(srv.url, 'POST', '/v1/profiles/unlock', { key: tenant.key, body: { person_id: person }, idempotencyKey: 'api-unlock-000001' });
  expect(viaApi.json).toMatchObject({ already_unlocked: true, credits_charged: 0 });
});

test('match_person and its validation', async () => {
  const match = await call('match_person', { name: 'Nobody Atall', company: 'No Such Company Ltd' });
  expect(match.isError).toBe(false);
  expect(Array.isArray(match.body.data)).toBe(true);
  const empty = await call('match_person', {});
  expect(empty).toMatchObject({ isError: true, body: { code: 'validation_failed' } });
  const tooBig = await call('search_candidates', { ...SEARCH, page_size: 500 });
  expect(tooBig).toMatchObject({ isError: true, body: { code: 'validation_failed', errors: [expect.objectContaining({ field: 'page_size' })] } });
});

test('match_person without credits: the same refusal whether the email belongs to someone or not', async () => {
  const broke = await createTenant({ credits: 0 });
  const m2m = await createClient(fileStores(), { orgId: broke.orgId, rateLimitPerMinute: 1000 }, new Date());
  const token = (await clientCredentialsToken(srv, await discover(srv), m2m.client_id, m2m.client_secret)).access_token;
  const client = new Client({ name: 'search-tools-test-broke', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${srv.url}/tools`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  try {
    const contact = (await srv.deps.stores.talent.providerContactWithEmail())!;
    const refusal = async (email: string) => {
      const r = await client.callTool({ name: 'match_person', arguments: { email } });
      expect(r.isError).toBe(true);
      const { request_id: _r, instance: _i, ...body } = r.structuredContent as Structured;
      return body;
    };
    const known = await refusal(contact.emails[0]);
    expect(known).toMatchObject({ code: 'insufficient_credits', required_credits: 1 });
    expect(JSON.stringify(await refusal('nobody-at-all@nowhere.example'))).toBe(JSON.stringify(known));
  } finally {
    await client.close();
  }
});
