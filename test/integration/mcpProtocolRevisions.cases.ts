import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createClient } from '../../core/oauth/clients';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startTestApi, type TestApi } from '../support/testApi';
import { OAUTH_ENV, clientCredentialsToken, discover } from './oauthTestClient';
import { fileStores } from '../support/testStore';

/**
 * `/tools` speaks MCP 2025-11-25 (initialize handshake, SDK 1.x server) and
 * 2026-07-28 (sessionless, server/discover, Mcp-Method/Mcp-Name; SDK 2.x server) from one tool
 * catalogue and one dispatcher, chosen by the protocol version each request carries.
 */

const MODERN = '2026-07-28';
const SEARCH = { filters: { min_years_experience: 0 }, page_size: 3 };
let srv: TestApi;
let tenant: TestTenant;
let token: string;

beforeAll(async () => {
  srv = await startTestApi(OAUTH_ENV);
  tenant = await createTenant({ credits: 1000 });
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 50 });
  const m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 1000 }, new Date());
  token = (await clientCredentialsToken(srv, await discover(srv), m2m.client_id, m2m.client_secret)).access_token;
});
afterAll(async () => srv?.close());

const toolsUrl = () => new URL(`${srv.url}/tools`);
const auth = () => ({ Authorization: `Bearer ${token}` });

function modernBody(method: string, params: Record<string, unknown> = {}, id = 1) {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN,
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}

async function postModern(body: unknown, headers: Record<string, string>) {
  const res = await fetch(toolsUrl(), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': MODERN, ...auth(), ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

describe('both protocol revisions on /tools', () => {
  test('the SDK 1.x client (2025-11-25, initialize) lists the tools and calls one that charges credits', async () => {
    const client = new ClientV1({ name: 'v1-client', version: '1.0.0' });
    await client.connect(new TransportV1(toolsUrl(), { requestInit: { headers: auth() } }));
    expect(client.getServerVersion()?.name).toBe('talent-platform-tools');
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['search_candidates', 'unlock_profile', 'whoami']));
    const r = await client.callTool({ name: 'search_candidates', arguments: { ...SEARCH, idempotency_key: 'rev-v1-search-0001' } });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as any).credits_charged).toBeGreaterThan(0);
    await client.close();
  });

  test('the SDK 2.x client pinned to 2026-07-28 (server/discover, no session) lists the same tools and calls one that charges credits', async () => {
    const client = new ClientV2({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new TransportV2(toolsUrl(), { requestInit: { headers: auth() } }));
    expect(client.getProtocolEra()).toBe('modern');
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const v2Names = (await client.listTools()).tools.map((t) => t.name);
    const v1 = new ClientV1({ name: 'v1-client', version: '1.0.0' });
    await v1.connect(new TransportV1(toolsUrl(), { requestInit: { headers: auth() } }));
    expect(v2Names).toEqual((await v1.listTools()).tools.map((t) => t.name)); // one catalogue
    // The same prices and instructions on both revisions.
    expect((await client.listTools()).tools.map((t) => [t.name, t.description, t._meta])).toEqual(
      (await v1.listTools()).tools.map((t) => [t.name, t.description, t._meta]),
    );
    expect(client.getInstructions()).toBe(v1.getInstructions());
    expect(v1.getInstructions()).toContain('credits');
    await v1.close();
    const r = await client.callTool({ name: 'search_candidates', arguments: { ...SEARCH, idempotency_key: 'rev-v2-search-0001' } });
    expect(r.isError).toBeFalsy();
    expect((r.structuredContent as any).credits_charged).toBeGreaterThan(0);
    // Same pipeline: an idempotent replay answers the same body without a second charge.
    const replay = await client.callTool({ name: 'search_candidates', arguments: { ...SEARCH, idempotency_key: 'rev-v2-search-0001' } });
    expect(replay.structuredContent).toEqual(r.structuredContent);
    await client.close();
  });

  test("the SDK 2.x client in 'auto' mode negotiates 2026-07-28 by server/discover", async () => {
    const client = new ClientV2({ name: 'v2-auto', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new TransportV2(toolsUrl(), { requestInit: { headers: auth() } }));
    expect(client.getProtocolEra()).toBe('modern');
    expect((await client.callTool({ name: 'whoami', arguments: {} })).isError).toBeFalsy();
    await client.close();
  });

  test('server/discover answers the supported revisions and the tools capability; no session id', async () => {
    const res = await fetch(toolsUrl(), {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': 'server/discover',
        ...auth(),
      },
      body: JSON.stringify(modernBody('server/discover')),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const json = (await res.json()) as any;
    expect(json.result.supportedVersions).toContain(MODERN);
    expect(json.result.capabilities).toHaveProperty('tools');
  });

  test('Mcp-Method and Mcp-Name are checked against the body: a mismatch or a missing header is 400', async () => {
    const ok = await postModern(modernBody('tools/call', { name: 'whoami', arguments: {} }), { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'whoami' });
    expect(ok.status).toBe(200);
    expect(ok.json.result.isError).toBeFalsy();
    const wrongMethod = await postModern(modernBody('tools/list'), { 'Mcp-Method': 'tools/call' });
    expect(wrongMethod.status).toBe(400);
    const wrongName = await postModern(modernBody('tools/call', { name: 'whoami', arguments: {} }), {
      'Mcp-Method': 'tools/call',
      'Mcp-Name': 'search_candidates',
    });
    expect(wrongName.status).toBe(400);
    const missing = await postModern(modernBody('tools/list'), {});
    expect(missing.status).toBe(400);
  });

  test('a 2026-07-28 request is authenticated like any other: no token is 401 with the challenge', async () => {
    const res = await fetch(toolsUrl(), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'MCP-Protocol-Version': MODERN, 'Mcp-Method': 'tools/list' },
      body: JSON.stringify(modernBody('tools/list')),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata="');
  });
});
