import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SignJWT, generateKeyPair } from 'jose';
import { PRICES } from '../../core/credits/prices';
import { BASELINE_ENTRY } from '../../core/limits/limitTable';
import { PRICE_META_KEY } from '../../api/mcp/toolCatalog';
import { clearLimit, setOrganizationRate } from '../../core/limits/limitSettings';
import { issueAccessToken } from '../../core/oauth/accessTokens';
import { createClient, revokeClient } from '../../core/oauth/clients';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startTestApi, type TestApi } from '../support/testApi';
import { AUTH_URL, MCP_URL, OAUTH_ENV, RESOURCE, clientCredentialsToken, discover } from './oauthTestClient';
import { fileStores } from '../support/testStore';

let srv: TestApi;
let tenant: TestTenant;
let m2m: { client_id: string; client_secret: string; workspace_id: string; application_id: string };
let token: string;

beforeAll(async () => {
  srv = await startTestApi(OAUTH_ENV);
  tenant = await createTenant({ credits: 1000 });
  m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 1000 }, new Date());
  token = (await clientCredentialsToken(srv, await discover(srv), m2m.client_id, m2m.client_secret)).access_token;
});
afterAll(async () => srv.close());

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function postTools(authorization?: string) {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  if (authorization) headers.Authorization = authorization;
  return fetch(`${srv.url}/tools`, { method: 'POST', headers, body: JSON.stringify(INITIALIZE) });
}

async function connect(bearer: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${srv.url}/tools`), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } });
  const client = new Client({ name: 'integration-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const metadataUrl = `${MCP_URL}/.well-known/oauth-protected-resource/tools`;

describe('bearer validation at /tools', () => {
  test('no token: 401 with the resource metadata in the challenge and no error code', async () => {
    const res = await postTools();
    expect(res.status).toBe(401);
    const challenge = res.headers.get('www-authenticate')!;
    expect(challenge).toMatch(/^Bearer /);
    expect(challenge).toContain(`resource_metadata="${metadataUrl}"`);
    expect(challenge).not.toContain('error=');
  });

  async function expectInvalidToken(bearer: string) {
    const res = await postTools(`Bearer ${bearer}`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(res.headers.get('www-authenticate')).toContain(`resource_metadata="${metadataUrl}"`);
  }

  test('an API key is never accepted, and the answer says so and how to get a token', async () => {
    await expectInvalidToken(tenant.key);
    const res = await postTools(`Bearer ${tenant.key}`);
    const body = (await res.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_token');
    expect(body.error_description).toMatch(/^API keys are not accepted by the tool server/);
    expect(body.error_description).toContain('/api/oauth/token (grant_type=client_credentials');
    expect(res.headers.get('www-authenticate')).toContain('error_description="API keys are not accepted');
    expect(JSON.stringify(body) + res.headers.get('www-authenticate')).not.toContain(tenant.key);
    // A test-environment key is an API key too.
    const testKey = await postTools('Bearer sk_test_ext_' + 'a'.repeat(40));
    expect(((await testKey.json()) as { error_description: string }).error_description).toMatch(/^API keys are not accepted/);
  });

  test('an expired token', async () => {
    const expired = await issueAccessToken({
      issuer: AUTH_URL,
      audience: RESOURCE,
      clientId: m2m.client_id,
      scope: 'mcp:tools',
      ttlSeconds: 60,
      signingKeys: srv.signingKeys,
      now: new Date(Date.now() - 3600_000),
    });
    await expectInvalidToken(expired.token);
  });

  test('a token for another audience', async () => {
    const other = await issueAccessToken({
      now: new Date(),
      issuer: AUTH_URL,
      audience: 'http://other.invalid/tools',
      clientId: m2m.client_id,
      scope: 'mcp:tools',
      ttlSeconds: 600,
      signingKeys: srv.signingKeys,
    });
    await expectInvalidToken(other.token);
  });

  test('a token signed by an unknown key', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const now = Math.floor(Date.now() / 1000);
    const forged = await new SignJWT({ client_id: m2m.client_id, scope: 'mcp:tools' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'jwk_unknown0000000000000' })
      .setIssuer(AUTH_URL)
      .setAudience(RESOURCE)
      .setSubject(m2m.client_id)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .setJti(randomUUID())
      .sign(privateKey);
    await expectInvalidToken(forged);
  });

  test('an unsigned token (alg none), even with a known kid', async () => {
    const [realHeader] = token.split('.');
    const kid = JSON.parse(Buffer.from(realHeader, 'base64url').toString()).kid;
    const now = Math.floor(Date.now() / 1000);
    const enc = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const unsigned = `${enc({ alg: 'none', typ: 'at+jwt', kid })}.${enc({ iss: AUTH_URL, aud: RESOURCE, sub: m2m.client_id, client_id: m2m.client_id, scope: 'mcp:tools', iat: now, exp: now + 600, jti: 'x' })}.`;
    await expectInvalidToken(unsigned);
  });

  test('a token without the mcp:tools scope is 403 insufficient_scope', async () => {
    const narrow = await issueAccessToken({
      now: new Date(),
      issuer: AUTH_URL,
      audience: RESOURCE,
      clientId: m2m.client_id,
      scope: 'profile',
      ttlSeconds: 600,
      signingKeys: srv.signingKeys,
    });
    const res = await postTools(`Bearer ${narrow.token}`);
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });

  test("a revoked client's tokens fail on the next request", async () => {
    const c = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 100 }, new Date());
    const t = (await clientCredentialsToken(srv, await discover(srv), c.client_id, c.client_secret)).access_token;
    expect((await postTools(`Bearer ${t}`)).status).toBe(200);
    await revokeClient(srv.deps.stores, c.client_id, new Date());
    await expectInvalidToken(t);
  });

  test('per-credential rate limit: 429 with Retry-After', async () => {
    const c = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 3 }, new Date());
    // The token request itself counts: 1 + 5 requests cross at most one minute boundary.
    const t = (await clientCredentialsToken(srv, await discover(srv), c.client_id, c.client_secret)).access_token;
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 5; i++) {
      const res = await postTools(`Bearer ${t}`);
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get('retry-after');
    }
    expect(statuses).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  });
});

/** A request with a Host header fetch would not send: node:http sends it as given. */
function withHost(path: string, host: string, headers: Record<string, string>, body?: string): Promise<{ status: number; type: string; body: string }> {
  const { hostname, port } = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port: Number(port), path, method: body === undefined ? 'GET' : 'POST', headers: { ...headers, Host: host } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? ''), body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('a malformed Host header', () => {
  test.each(['exa mple.com', '[::1', 'x:99999', 'a@b', '256.0.0.1'])('%j is 400 on every route, the tool server included', async (host) => {
    const jsonRpc = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}` };
    for (const [path, headers, body] of [
      ['/tools', jsonRpc, JSON.stringify(INITIALIZE)],
      ['/tools/', jsonRpc, JSON.stringify(INITIALIZE)],
      ['/v1/whoami', { Authorization: `Bearer ${tenant.key}` }, undefined],
      ['/.well-known/oauth-authorization-server', {}, undefined],
      ['/api/oauth/authorize?client_id=x', {}, undefined],
    ] as const) {
      const res = await withHost(path, host, headers, body);
      expect({ path, status: res.status, type: res.type }).toEqual({ path, status: 400, type: 'application/problem+json' });
      expect(JSON.parse(res.body)).toMatchObject({ code: 'malformed_request', status: 400 });
    }
  });

  test('a well-formed Host with a port still reaches the tool server', async () => {
    const res = await withHost(
      '/tools',
      'mcp.example.com:8443',
      { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${token}` },
      JSON.stringify(INITIALIZE),
    );
    expect(res.status).toBe(200);
  });
});

describe('MCP over Streamable HTTP with the official SDK client', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(token);
  });
  afterAll(async () => client.close());

  test('lists the tools with JSON schemas and descriptions', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('whoami');
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object');
      expect(t.description!.length).toBeGreaterThan(20);
    }
  });

  test('the server says what it is and that paid tools cost credits; each paid tool states its price from the price table', async () => {
    const instructions = client.getInstructions()!;
    expect(instructions).toMatch(/talent platform/i);
    expect(instructions).toContain('credits');
    const prices: Record<string, number> = {
      search_candidates: PRICES.searchPage,
      unlock_profile: PRICES.profileUnlock,
      match_person: PRICES.personMatch,
      create_contact_retrieval_job: PRICES.contactRecord,
    };
    const { tools } = await client.listTools();
    for (const t of tools) {
      const price = prices[t.name];
      if (price === undefined) {
        expect({ tool: t.name, meta: t._meta?.[PRICE_META_KEY] }).toEqual({ tool: t.name, meta: undefined });
        continue;
      }
      expect(t.description).toContain(`Costs ${price} credit`);
      expect(t._meta?.[PRICE_META_KEY]).toMatchObject({ credits: price, per: expect.any(String), free: expect.any(String) });
      expect(instructions).toContain(t.name);
    }
    expect(
      tools
        .filter((t) => t._meta?.[PRICE_META_KEY])
        .map((t) => t.name)
        .sort(),
    ).toEqual(Object.keys(prices).sort());
  });

  test('a tool acts as the client: its organization, workspace and application', async () => {
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    expect(result.isError).toBe(false);
    expect(result.structuredContent).toMatchObject({
      org_root: tenant.orgId,
      workspace_id: m2m.workspace_id,
      application_id: m2m.application_id,
      key_id: m2m.client_id,
      audience: RESOURCE,
    });
  });

  test('tool calls release their in-flight slot: more calls than the in-flight limit, one after another', async () => {
    // A request rate far above 27 calls, the in-flight limit left at 25: a refusal could only
    // come from an in-flight slot a finished call did not give back. This file's API is the only
    // replica and shares this process's read caches, which a change clears at once: no wait.
    const onlyReplica = { readCacheMs: 0 };
    await setOrganizationRate(fileStores(), onlyReplica, tenant.orgId, { requestsPerSecond: 1000, maxConcurrency: 25 }, Date.now);
    try {
      for (let i = 0; i < 27; i++) {
        const r = await client.callTool({ name: 'whoami', arguments: {} });
        expect(r.structuredContent).toMatchObject({ key_id: m2m.client_id });
      }
    } finally {
      await clearLimit(fileStores(), onlyReplica, {
        orgId: tenant.orgId,
        operation: BASELINE_ENTRY,
        scope: { type: 'organization', id: tenant.orgId },
        now: Date.now,
      });
    }
  });

  test('an unknown tool is a protocol error, and the session keeps working', async () => {
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    const again = await client.callTool({ name: 'whoami', arguments: {} });
    expect(again.isError).toBe(false);
  });

  test('GET and DELETE are 405 in stateless mode', async () => {
    const res = await fetch(`${srv.url}/tools`, { headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' } });
    expect(res.status).toBe(405);
  });
});
