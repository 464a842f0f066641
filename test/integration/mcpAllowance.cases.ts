import { randomBytes } from 'node:crypto';
import { newId } from '../../core/ids';
import { ALL_PERMISSIONS } from '../../core/keys/permissions';
import { issueAccessToken } from '../../core/oauth/accessTokens';
import { recordConsent } from '../../core/oauth/consentGrants';
import type { GrantAllowance } from '../../core/oauth/grantAllowance';
import { registerPublicClient } from '../../core/oauth/publicClients';
import { startChain } from '../../core/oauth/tokenChains';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { createUser } from '../../core/users/users';
import { createTenant, type TestTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { AUTH_URL, OAUTH_ENV, RESOURCE } from './oauthTestClient';
import { fileStores } from '../support/testStore';

/**
 * What a person allowed a connected AI application, enforced where money moves (DECISIONS.md
 * "Accounts, settings and AI application allowances"): tool calls over real HTTP to `/tools`, with
 * tokens as the code grant leaves them (a grant, a chain, an access token), charged on the real
 * ledger.
 */
let srv: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  srv = await startTestApi({ ...OAUTH_ENV, PERSON_TOOL_REQUESTS_PER_SECOND: '100' });
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 60 });
  tenant = await createTenant({ credits: 1_000 });
});
afterAll(async () => srv.close());

interface Connection {
  token: string;
  grantId: string;
  clientName: string;
}

/** A person connected through one application with `allowance`: the grant consent records, its chain and an access token. */
async function connect(allowance: GrantAllowance, clientName: string): Promise<Connection> {
  const user = await createUser(
    fileStores(),
    srv.config,
    {
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      email: `agent.${randomBytes(6).toString('hex')}@example.com`,
      permissions: [...ALL_PERMISSIONS],
    },
    new Date(),
  );
  const clientId = (await registerPublicClient(srv.deps.stores, { client_name: clientName, redirect_uris: ['https://agent.example.com/cb'] }, new Date()))
    .client_id as string;
  const grant = await recordConsent(
    srv.deps.stores,
    { userId: user.user_id, orgId: tenant.orgId, clientId, clientName, scope: 'mcp:tools', allowance },
    new Date(),
  );
  const chainId = newId('rtc');
  await startChain(srv.deps.stores, { id: chainId, userId: user.user_id, clientId, grantId: grant._id }, new Date());
  const { token } = await issueAccessToken({
    now: new Date(),
    issuer: AUTH_URL,
    audience: RESOURCE,
    clientId,
    scope: 'mcp:tools',
    ttlSeconds: 600,
    signingKeys: srv.signingKeys,
    user: { userId: user.user_id, chainId },
  });
  return { token, grantId: grant._id, clientName };
}

let rpcId = 0;
async function rpc(token: string, method: string, params: Record<string, unknown>): Promise<{ status: number; body: { result?: Record<string, unknown> } }> {
  const res = await fetch(`${srv.url}/tools`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
  });
  return { status: res.status, body: (await res.json()) as { result?: Record<string, unknown> } };
}

interface ToolAnswer {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
}

async function callTool(token: string, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const { status, body } = await rpc(token, 'tools/call', { name, arguments: args });
  expect(status).toBe(200);
  return body.result as ToolAnswer;
}

async function chargesOf(grantId: string) {
  return (await srv.deps.stores.credits.ledgerEntriesOfOrgs([tenant.orgId])).filter((e) => e.kind === 'charge' && e.agentGrantId === grantId);
}

const searchArgs = () => ({ query: 'engineer', page_size: 1, idempotency_key: `allow-${randomBytes(8).toString('hex')}` });

test('20 concurrent paid tool calls against an allowance of 5: exactly 5 credits charged, the rest refused naming the allowance', async () => {
  const agent = await connect({ mode: 'daily', dailyCredits: 5 }, 'Concurrent Agent');
  const answers = await Promise.all(Array.from({ length: 20 }, () => callTool(agent.token, 'search_candidates', searchArgs())));
  const paid = answers.filter((a) => !a.isError);
  const refused = answers.filter((a) => a.isError);
  expect(paid.map((a) => a.structuredContent?.credits_charged)).toEqual([1, 1, 1, 1, 1]);
  expect(refused).toHaveLength(15);
  for (const r of refused) {
    expect(r.structuredContent).toMatchObject({ code: 'agent_allowance_exhausted', daily_allowance: 5, allowance_remaining: 0, required_credits: 1 });
    expect(String(r.structuredContent?.detail)).toContain('Concurrent Agent may spend 5 credit(s) a day');
  }
  const charges = await chargesOf(agent.grantId);
  expect(charges.reduce((sum, e) => sum + e.amount, 0)).toBe(5);
  // The ledger entry of a tool-server charge names the application.
  for (const e of charges) expect(e).toMatchObject({ agentClientName: 'Concurrent Agent', agentGrantId: agent.grantId, operation: 'candidates.search' });
});

test('a read-only application: tools/list has no paid tool, and a crafted call of one is refused with nothing charged', async () => {
  const reader = await connect({ mode: 'read_only', dailyCredits: null }, 'Reading Agent');
  const { body } = await rpc(reader.token, 'tools/list', {});
  const tools = (body.result?.tools ?? []) as Array<{ name: string; annotations: { readOnlyHint: boolean } }>;
  expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['whoami', 'list_sources', 'get_job_result']));
  expect(tools.map((t) => t.name)).not.toEqual(expect.arrayContaining(['search_candidates']));
  expect(tools.every((t) => t.annotations.readOnlyHint)).toBe(true);

  for (const name of ['search_candidates', 'unlock_profile', 'cancel_contact_retrieval_job']) {
    const crafted = await callTool(reader.token, name, name === 'search_candidates' ? searchArgs() : { person_id: 'per_00000000', id: 'job_00000000' });
    expect(crafted.isError).toBe(true);
    expect(crafted.structuredContent).toMatchObject({ code: 'insufficient_scope', status: 403 });
    expect(String(crafted.structuredContent?.detail)).toContain('Reading Agent was allowed only to read');
  }
  expect(await chargesOf(reader.grantId)).toEqual([]);
  const me = await callTool(reader.token, 'whoami', {});
  expect(me.isError).toBe(false);
});

test('GET /v1/usage?group_by=application splits the spend by connected application', async () => {
  const agent = await connect({ mode: 'daily', dailyCredits: 3 }, 'Usage Agent');
  for (let i = 0; i < 4; i++) await callTool(agent.token, 'search_candidates', searchArgs());
  await srv.flushUsage();
  const split = await api(srv.url, 'GET', '/v1/usage?granularity=day&group_by=application&operation=candidates.search', { key: tenant.key });
  expect(split.status).toBe(200);
  const points = (split.json as { data: Array<{ application: { id: string; name: string | null } | null; credits: number; requests: Record<string, number> }> })
    .data;
  const ofAgent = points.filter((p) => p.application?.id === agent.grantId);
  expect(ofAgent.map((p) => p.application?.name)).toEqual(['Usage Agent']);
  expect(ofAgent[0]).toMatchObject({ credits: 3, requests: { success: 3, client_error: 1 } });
  // Without the parameter the same calls are one point per bucket and operation, with no application member.
  const merged = await api(srv.url, 'GET', '/v1/usage?granularity=day&operation=candidates.search', { key: tenant.key });
  const mergedPoints = (merged.json as { data: Array<Record<string, unknown>> }).data;
  expect(mergedPoints.every((p) => !('application' in p))).toBe(true);
  expect(mergedPoints.reduce((sum, p) => sum + Number(p.credits), 0)).toBe(points.reduce((sum, p) => sum + p.credits, 0));
});
