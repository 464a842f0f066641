import { request as httpRequest, type Server } from 'node:http';
import { createApp } from '../../api/app';
import { sealingKeyId } from '../../core/crypto/secretBox';
import { addressCapName, admitFromAddress, purgeStaleAddressEntries } from '../../core/limits/clientAddressLimits';
import { issueAccessToken } from '../../core/oauth/accessTokens';
import { createClient } from '../../core/oauth/clients';
import { createTenant, type TestTenant } from '../support/fixtures';
import type { HttpResponse } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';
import { AUTH_URL, OAUTH_ENV, RESOURCE } from './oauthTestClient';
import { expectProblemResponse } from '../support/problems';
import { createDeps } from '../../core/deps';
import { testLogger } from '../support/capturedLogs';
import { fileStores } from '../support/testStore';

/**
 * The request gate: what reaches a handler, how bodies are bounded, what answers
 * without a credential and how often. The server trusts one proxy hop, so each test speaks from
 * its own client address through X-Forwarded-For and the per-address limits stay apart.
 */

const METRICS_TOKEN = 'm'.repeat(40);
const PER_MINUTE = 3;

let srv: TestApi;
let tenant: TestTenant;
let addressCounter = 0;
/** A fresh client address per call (TEST-NET-2, never routed). */
const newAddress = () => `198.51.100.${++addressCounter}`;

beforeAll(async () => {
  srv = await startTestApi({
    ...OAUTH_ENV,
    TRUSTED_PROXY_HOPS: '1',
    ADDRESS_AUTH_FAILURES_PER_MINUTE: String(PER_MINUTE),
    ADDRESS_TOKEN_REQUESTS_PER_MINUTE: String(PER_MINUTE),
    ADDRESS_JWKS_REQUESTS_PER_MINUTE: String(PER_MINUTE),
    METRICS_TOKEN,
  });
  tenant = await createTenant({ credits: 100 });
});
afterAll(async () => srv.close());

/** Sends the path byte for byte (URL parsing would normalise `/./`, `//` and `%2F`). */
function rawPath(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<HttpResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { hostname: url.hostname, port: url.port, method, path, headers: { ...headers, ...(body ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}) } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => {
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    if (body) req.write(body);
    req.end();
  });
}

describe('`/V1/...` skips authentication and admission (#17)', () => {
  const FORMS: Array<[string, string]> = [
    ['GET', '/V1/whoami'],
    ['GET', '/v1/WHOAMI'],
    ['POST', '/V1/candidates/search'],
    ['GET', '/v1/whoami/'],
    ['GET', '/v1/'],
    ['GET', '/v1'],
    ['GET', '/%2Fv1/whoami'],
    ['GET', '/v1%2Fwhoami'],
    ['GET', '/v1%2fwhoami'],
    ['GET', '//v1/whoami'],
    ['GET', '/v1/./whoami'],
    ['GET', '/v1/../v1/whoami'],
    ['GET', '/%76%31/whoami'],
    ['GET', '/v1/%77hoami'],
  ];

  test.each(FORMS)('%s %s without a key is 404 not_found: no route matches, no handler runs', async (method, path) => {
    const body = method === 'POST' ? JSON.stringify({ query: 'engineer' }) : undefined;
    const res = await rawPath(srv.url, method, path, { 'Content-Type': 'application/json', 'X-Forwarded-For': newAddress() }, body);
    expectProblemResponse(res, 404, 'not_found');
  });

  test.each(FORMS)('%s %s with a valid key is still 404: the exact path is the only way in', async (method, path) => {
    const body = method === 'POST' ? JSON.stringify({ query: 'engineer' }) : undefined;
    const res = await rawPath(
      srv.url,
      method,
      path,
      { Authorization: `Bearer ${tenant.key}`, 'Content-Type': 'application/json', 'Idempotency-Key': `gate-${Math.random()}` },
      body,
    );
    expectProblemResponse(res, 404, 'not_found');
  });

  test('the exact paths answer 401 without a key and reach the handler with one', async () => {
    expectProblemResponse(await rawPath(srv.url, 'GET', '/v1/whoami', { 'X-Forwarded-For': newAddress() }), 401, 'missing_api_key');
    const search = await rawPath(
      srv.url,
      'POST',
      '/v1/candidates/search',
      { 'Content-Type': 'application/json', 'X-Forwarded-For': newAddress() },
      '{"query":"x"}',
    );
    expectProblemResponse(search, 401, 'missing_api_key');
    const ok = await rawPath(srv.url, 'GET', '/v1/whoami', { Authorization: `Bearer ${tenant.key}` });
    expect(ok.status).toBe(200);
    expect(ok.json.key_id).toBe(tenant.keyId);
    // Baseline admission ran: its headers are on the answer.
    expect(ok.headers['ratelimit-policy']).toContain('"baseline"');
  });
});

describe('a deeply nested JSON body of 30 KB answers 500 (#17)', () => {
  /** `n` arrays, one inside the other. */
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

  test('30 KB of nesting is 422 validation_failed naming body, before any walker runs', async () => {
    const body = `{"query":"engineer","filters":${nested(15_000)}}`;
    expect(Buffer.byteLength(body)).toBeGreaterThan(29_000);
    const res = await rawPath(
      srv.url,
      'POST',
      '/v1/candidates/search',
      { Authorization: `Bearer ${tenant.key}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'gate-deep-000001' },
      body,
    );
    expectProblemResponse(res, 422, 'validation_failed');
    expect(res.json.errors).toEqual([{ field: 'body', message: expect.stringContaining('32') }]);
  });

  test('depth 32 passes the depth check; depth 33 is refused by it', async () => {
    // The top-level object is depth 1, so a member holding 31 nested arrays makes 32.
    const send = (arrays: number, key: string) =>
      rawPath(
        srv.url,
        'POST',
        '/v1/candidates/search',
        { Authorization: `Bearer ${tenant.key}`, 'Content-Type': 'application/json', 'Idempotency-Key': key },
        `{"query":"engineer","extra":${nested(arrays)}}`,
      );
    const atLimit = await send(31, 'gate-depth-000032');
    expectProblemResponse(atLimit, 422, 'validation_failed');
    expect(atLimit.json.errors.map((e: { field: string }) => e.field)).not.toContain('body');
    const over = await send(32, 'gate-depth-000033');
    expectProblemResponse(over, 422, 'validation_failed');
    expect(over.json.errors).toEqual([{ field: 'body', message: expect.stringContaining('deeper than 32') }]);
  });

  test('the tool server refuses a deeply nested JSON-RPC message without a 500', async () => {
    const m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 1000 }, new Date());
    const { token } = await issueAccessToken({
      now: new Date(),
      issuer: AUTH_URL,
      audience: RESOURCE,
      clientId: m2m.client_id,
      scope: 'mcp:tools',
      ttlSeconds: 600,
      signingKeys: srv.signingKeys,
    });
    const message = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"whoami","arguments":{"x":${nested(15_000)}}}}`;
    const res = await rawPath(
      srv.url,
      'POST',
      '/tools',
      { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      message,
    );
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ code: -32600, message: expect.stringContaining('deeper than 32') });
  });
});

describe('no rate limit on bad keys (#17)', () => {
  const badKey = 'sk_live_ext_' + 'A'.repeat(43);
  const whoami = (base: string, address: string, key: string) =>
    rawPath(base, 'GET', '/v1/whoami', { Authorization: `Bearer ${key}`, 'X-Forwarded-For': address });

  test('past the failed-authentication limit an address is 429 rate_limited with Retry-After for failing keys only', async () => {
    const address = newAddress();
    for (let i = 0; i < PER_MINUTE; i++) expectProblemResponse(await whoami(srv.url, address, badKey), 401, 'invalid_api_key');
    const limited = await whoami(srv.url, address, badKey);
    expectProblemResponse(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers['retry-after'])).toBeLessThanOrEqual(60);
    // A valid key from the same address is admitted, before and after further failures.
    const valid = await whoami(srv.url, address, tenant.key);
    expect(valid.status).toBe(200);
    expect((valid.json as { org_root: string }).org_root).toBe(tenant.orgId);
    expectProblemResponse(await whoami(srv.url, address, badKey), 429, 'rate_limited');
    expect((await whoami(srv.url, address, tenant.key)).status).toBe(200);
    // Other addresses are unaffected.
    expectProblemResponse(await whoami(srv.url, newAddress(), badKey), 401, 'invalid_api_key');
  });

  test('a valid key from an address over the limit is admitted on a replica that never saw its failures', async () => {
    const second = createApp({
      deps: createDeps(srv.config, { logger: testLogger(), store: srv.deps.store }),
      probes: { store: () => srv.deps.store.ping(), temporal: async () => true },
    }).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => second.once('listening', resolve));
    const replica2 = `http://127.0.0.1:${(second.address() as { port: number }).port}`;
    try {
      const address = newAddress();
      for (let i = 0; i < PER_MINUTE; i++) expectProblemResponse(await whoami(srv.url, address, badKey), 401, 'invalid_api_key');
      expectProblemResponse(await whoami(replica2, address, badKey), 429, 'rate_limited');
      expect((await whoami(replica2, address, tenant.key)).status).toBe(200);
      expect((await whoami(srv.url, address, tenant.key)).status).toBe(200);
    } finally {
      await closeServer(second);
    }
  });

  test('the failure count is shared by every replica', async () => {
    const second = createApp({
      deps: createDeps(srv.config, { logger: testLogger(), store: srv.deps.store }),
      probes: { store: () => srv.deps.store.ping(), temporal: async () => true },
    }).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => second.once('listening', resolve));
    const port = (second.address() as { port: number }).port;
    const replica2 = `http://127.0.0.1:${port}`;
    try {
      const address = newAddress();
      expectProblemResponse(await whoami(srv.url, address, badKey), 401, 'invalid_api_key');
      expectProblemResponse(await whoami(replica2, address, badKey), 401, 'invalid_api_key');
      expectProblemResponse(await whoami(srv.url, address, badKey), 401, 'invalid_api_key');
      expectProblemResponse(await whoami(replica2, address, badKey), 429, 'rate_limited');
      expectProblemResponse(await whoami(srv.url, address, badKey), 429, 'rate_limited');
    } finally {
      await closeServer(second);
    }
  });
});

describe('client-address limit entries', () => {
  test('entries older than two minutes are purged; recent ones and other caps stay', async () => {
    const address = newAddress();
    const t = Date.now();
    const name = addressCapName(srv.deps.purposeKeys, 'jwks', address);
    await admitFromAddress(srv.deps.purposeKeys, 'jwks', address, 10, { limits: srv.deps.stores.limits, now: () => t - 3 * 60_000, logger: testLogger() });
    await admitFromAddress(srv.deps.purposeKeys, 'jwks', address, 10, { limits: srv.deps.stores.limits, now: () => t, logger: testLogger() });
    await srv.deps.stores.limits.insertCapEntry({ _id: 'c:org:op:key:k:0', cap: 'org:op:key:k', i: 0, at: t - 3 * 60_000 });
    // Each process also purges in the background once a minute (the same query), so the old entry may already be gone.
    expect(await purgeStaleAddressEntries(srv.deps.stores.limits, t)).toBeLessThanOrEqual(1);
    expect(await srv.deps.stores.limits.capEntriesWithPrefix(name)).toHaveLength(1);
    expect(await srv.deps.stores.limits.capEntriesWithPrefix('org:op:key:k')).toHaveLength(1);
  });
});

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

describe('no rate limit on the token endpoint or JWKS (#17)', () => {
  const tokenRequest = (address: string) =>
    rawPath(
      srv.url,
      'POST',
      '/api/oauth/token',
      { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': address },
      'grant_type=client_credentials&client_id=cli_nobody&client_secret=nothing',
    );

  test('the token endpoint answers 429 rate_limited per client address, in its own error format', async () => {
    const address = newAddress();
    for (let i = 0; i < PER_MINUTE; i++) expect((await tokenRequest(address)).status).toBe(401);
    const limited = await tokenRequest(address);
    expect(limited.status).toBe(429);
    expect(limited.json).toMatchObject({ error: 'rate_limited' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await tokenRequest(newAddress())).status).toBe(401);
  });

  test('the JWKS answers 429 rate_limited per client address', async () => {
    const address = newAddress();
    for (let i = 0; i < PER_MINUTE; i++) expect((await rawPath(srv.url, 'GET', '/api/oauth/jwks', { 'X-Forwarded-For': address })).status).toBe(200);
    const limited = await rawPath(srv.url, 'GET', '/api/oauth/jwks', { 'X-Forwarded-For': address });
    expectProblemResponse(limited, 429, 'rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await rawPath(srv.url, 'GET', '/api/oauth/jwks', { 'X-Forwarded-For': newAddress() })).status).toBe(200);
  });
});

describe('`/metrics` is public and shows charge counters (#17)', () => {
  test('metrics need the METRICS_TOKEN bearer', async () => {
    const none = await rawPath(srv.url, 'GET', '/metrics');
    expectProblemResponse(none, 401, 'missing_api_key');
    expect(none.headers['www-authenticate']).toContain('Bearer');
    expectProblemResponse(await rawPath(srv.url, 'GET', '/metrics', { Authorization: `Bearer ${'x'.repeat(40)}` }), 401, 'invalid_api_key');
    const ok = await rawPath(srv.url, 'GET', '/metrics', { Authorization: `Bearer ${METRICS_TOKEN}` });
    expect(ok.status).toBe(200);
    expect(ok.text).toMatch(/^# HELP /m);
  });
});

describe('`X-API-Key` headers are not checked (#17)', () => {
  test.each([
    ['X-API-Key', 'anything'],
    ['Api-Key', 'anything'],
    ['X-Auth-Token', 'anything'],
    ['X-Custom', `sk_live_ext_${'B'.repeat(43)}`],
  ])('a request carrying %s is 400 malformed_authorization, even beside a valid Authorization', async (name, value) => {
    const res = await rawPath(srv.url, 'GET', '/v1/whoami', { Authorization: `Bearer ${tenant.key}`, [name]: value });
    expectProblemResponse(res, 400, 'malformed_authorization');
    expect(res.text).not.toContain(value);
  });
});

describe('`SECRETS_ENCRYPTION_KEY` feeds both AES-GCM and HMAC with no key version (#17)', () => {
  test('a signing key is sealed in the versioned form under a derived key, and tokens still sign', async () => {
    const { kid } = await srv.signingKeys.rotate(new Date());
    const doc = await srv.deps.stores.oauth.findSigningKey(kid);
    expect(doc!.privateJwkSealed.split('.')).toEqual(['v2', sealingKeyId(srv.deps.purposeKeys), expect.any(String), expect.any(String), expect.any(String)]);
    const m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 1000 }, new Date());
    const res = await rawPath(
      srv.url,
      'POST',
      '/api/oauth/token',
      { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': newAddress() },
      new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: m2m.client_id,
        client_secret: m2m.client_secret,
        scope: 'mcp:tools',
        resource: RESOURCE,
      }).toString(),
    );
    expect(res.status).toBe(200);
    const header = JSON.parse(Buffer.from(res.json.access_token.split('.')[0], 'base64url').toString());
    expect(header.kid).toBe(kid);
  });
});
