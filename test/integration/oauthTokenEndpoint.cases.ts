import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { promisify } from 'node:util';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import * as oauth from 'oauth4webapi';
import { createApp } from '../../api/app';
import { createClient, revokeClient, rotateClientSecret } from '../../core/oauth/clients';
import { REFRESH_RETRY_WINDOW_MS, refreshTokenGrant } from '../../core/oauth/grants/refreshToken';
import { SigningKeys } from '../../core/oauth/signingKeys';
import { createTenant, type TestTenant } from '../support/fixtures';
import { testConfig } from '../support/testConfig';
import { startTestApi, type TestApi } from '../support/testApi';
import { TYPESCRIPT_NODE_ARGS } from '../support/typescriptProcess';
import { AUTH_URL, OAUTH_ENV, RESOURCE, basic, clientCredentialsToken, discover, requestOptions, tokenRequest } from './oauthTestClient';
import { createDeps } from '../../core/deps';
import { testLogger } from '../support/capturedLogs';
import { fileStores } from '../support/testStore';
import { purposeKeysOf } from '../../core/crypto/purposeKeys';

let srv: TestApi;
let tenant: TestTenant;
let as: oauth.AuthorizationServer;
let client: { client_id: string; client_secret: string };

beforeAll(async () => {
  srv = await startTestApi(OAUTH_ENV);
  tenant = await createTenant();
  client = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 1000 }, new Date());
  as = await discover(srv);
});
afterAll(async () => srv.close());

async function jwksOf(): Promise<JSONWebKeySet> {
  return (await (await fetch(`${srv.url}/api/oauth/jwks`)).json()) as JSONWebKeySet;
}

const ccForm = (extra: Record<string, string> = {}) => ({
  grant_type: 'client_credentials',
  client_id: client.client_id,
  client_secret: client.client_secret,
  scope: 'mcp:tools',
  resource: RESOURCE,
  ...extra,
});

describe('discovery (RFC 8414, RFC 9728)', () => {
  test('authorization server metadata names the issuer, token endpoint, JWKS, grants, methods and scopes', () => {
    expect(as.issuer).toBe(AUTH_URL);
    expect(as.token_endpoint).toBe(`${AUTH_URL}/api/oauth/token`);
    expect(as.jwks_uri).toBe(`${AUTH_URL}/api/oauth/jwks`);
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(['client_credentials', 'refresh_token']));
    expect(as.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['client_secret_basic', 'client_secret_post']));
    expect(as.scopes_supported).toEqual(['mcp:tools']);
  });

  test('protected resource metadata of the tool server', async () => {
    const res = await fetch(`${srv.url}/.well-known/oauth-protected-resource/tools`);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      resource: RESOURCE,
      authorization_servers: [AUTH_URL],
      scopes_supported: ['mcp:tools'],
      bearer_methods_supported: ['header'],
    });
  });
});

describe('client_credentials', () => {
  test('client_secret_post: an RFC 9068 access token, a refresh token, no-store', async () => {
    const raw = await tokenRequest(srv, ccForm());
    expect(raw.status).toBe(200);
    expect(raw.headers.get('cache-control')).toBe('no-store');
    expect(raw.headers.get('pragma')).toBe('no-cache');
    expect(raw.json).toMatchObject({ token_type: 'Bearer', expires_in: 900, scope: 'mcp:tools' });
    expect(typeof raw.json.refresh_token).toBe('string');

    const jwks = await jwksOf();
    const header = decodeProtectedHeader(raw.json.access_token);
    expect(header).toMatchObject({ typ: 'at+jwt', alg: 'ES256' });
    expect(jwks.keys.map((k) => k.kid)).toContain(header.kid);
    expect(JSON.stringify(jwks)).not.toMatch(/"d":/);
    const { payload } = await jwtVerify(raw.json.access_token, createLocalJWKSet(jwks), { issuer: AUTH_URL, audience: RESOURCE, typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: client.client_id, client_id: client.client_id, scope: 'mcp:tools', aud: RESOURCE });
    expect(payload.exp! - payload.iat!).toBe(900);
    expect(typeof payload.jti).toBe('string');
  });

  test('oauth4webapi with client_secret_post and with client_secret_basic', async () => {
    const viaPost = await clientCredentialsToken(srv, as, client.client_id, client.client_secret, 'post');
    const viaBasic = await clientCredentialsToken(srv, as, client.client_id, client.client_secret, 'basic');
    expect(viaPost.token_type).toBe('bearer');
    expect(viaBasic.token_type).toBe('bearer');
    expect(viaPost.access_token).not.toBe(viaBasic.access_token);
  });

  test('Basic and client_secret in the body at once is invalid_request', async () => {
    const res = await tokenRequest(srv, ccForm(), { Authorization: basic(client.client_id, client.client_secret) });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
  });

  test('a wrong secret: 401 invalid_client, with a Basic challenge when Basic was used', async () => {
    const post = await tokenRequest(srv, ccForm({ client_secret: 'mcs_wrong' }));
    expect(post.status).toBe(401);
    expect(post.json.error).toBe('invalid_client');
    const { client_secret: _omit, ...noSecret } = ccForm();
    const viaBasic = await tokenRequest(srv, noSecret, { Authorization: basic(client.client_id, 'mcs_wrong') });
    expect(viaBasic.status).toBe(401);
    expect(viaBasic.json.error).toBe('invalid_client');
    expect(viaBasic.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(viaBasic.headers.get('cache-control')).toBe('no-store');
  });

  test.each([
    ['scope other than mcp:tools', { scope: 'admin' }, 400, 'invalid_scope'],
    ['resource of another server', { resource: 'http://elsewhere.invalid/tools' }, 400, 'invalid_target'],
    ['resource missing', { resource: '' }, 400, 'invalid_request'],
    ['scope missing', { scope: '' }, 400, 'invalid_request'],
    ['unknown grant type', { grant_type: 'password' }, 400, 'unsupported_grant_type'],
  ])('%s', async (_name, extra, status, error) => {
    const form = ccForm(extra as Record<string, string>);
    for (const [k, v] of Object.entries(form)) if (v === '') delete (form as Record<string, string>)[k];
    const res = await tokenRequest(srv, form);
    expect(res.status).toBe(status);
    expect(res.json.error).toBe(error);
  });

  test('only POST reaches the token endpoint', async () => {
    const res = await fetch(`${srv.url}/api/oauth/token`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('POST');
  });

  test('a parameter sent twice, a JSON body, and credentials in the URL are invalid_request', async () => {
    const twice = await tokenRequest(srv, new URLSearchParams(ccForm()).toString() + '&scope=mcp:tools');
    expect(twice.json.error).toBe('invalid_request');
    const json = await fetch(`${srv.url}/api/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(ccForm()) });
    expect(json.status).toBe(400);
    expect(((await json.json()) as { error: string }).error).toBe('invalid_request');
    const inUrl = await fetch(`${srv.url}/api/oauth/token?client_secret=${client.client_secret}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(ccForm()).toString(),
    });
    expect(inUrl.status).toBe(400);
  });
});

describe('refresh_token', () => {
  test('each use returns a new refresh token; reusing a used one is invalid_grant and revokes the chain', async () => {
    const first = await clientCredentialsToken(srv, as, client.client_id, client.client_secret);
    const auth = oauth.ClientSecretPost(client.client_secret);
    const c = { client_id: client.client_id };
    const second = await oauth.processRefreshTokenResponse(as, c, await oauth.refreshTokenGrantRequest(as, c, auth, first.refresh_token!, requestOptions(srv)));
    expect(second.refresh_token).toBeDefined();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.scope).toBe('mcp:tools');
    const { payload } = await jwtVerify(second.access_token, createLocalJWKSet(await jwksOf()));
    expect(payload.aud).toBe(RESOURCE);

    // Reuse of the first token: refused, and the chain's live token dies with it.
    const reuse = await tokenRequest(srv, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token!,
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(reuse.status).toBe(400);
    expect(reuse.json.error).toBe('invalid_grant');
    const afterReuse = await tokenRequest(srv, {
      grant_type: 'refresh_token',
      refresh_token: second.refresh_token!,
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(afterReuse.json.error).toBe('invalid_grant');
  });

  test('refresh with Basic authentication works and requires client authentication', async () => {
    const first = await clientCredentialsToken(srv, as, client.client_id, client.client_secret, 'basic');
    const noAuth = await tokenRequest(srv, { grant_type: 'refresh_token', refresh_token: first.refresh_token! });
    expect(noAuth.status).toBe(401);
    expect(noAuth.json.error).toBe('invalid_client');
    const ok = await tokenRequest(
      srv,
      { grant_type: 'refresh_token', refresh_token: first.refresh_token! },
      { Authorization: basic(client.client_id, client.client_secret) },
    );
    expect(ok.status).toBe(200);
    expect(ok.json.scope).toBe('mcp:tools');
  });

  test("another client's refresh token is invalid_grant and does not consume it", async () => {
    const other = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 100 }, new Date());
    const mine = await clientCredentialsToken(srv, as, client.client_id, client.client_secret);
    const stolen = await tokenRequest(srv, {
      grant_type: 'refresh_token',
      refresh_token: mine.refresh_token!,
      client_id: other.client_id,
      client_secret: other.client_secret,
    });
    expect(stolen.status).toBe(400);
    expect(stolen.json.error).toBe('invalid_grant');
    const owner = await tokenRequest(srv, {
      grant_type: 'refresh_token',
      refresh_token: mine.refresh_token!,
      client_id: client.client_id,
      client_secret: client.client_secret,
    });
    expect(owner.status).toBe(200);
  });

  test('a refresh token idle past REFRESH_TOKEN_IDLE_SECONDS no longer works; only hashes are stored', async () => {
    const t = await clientCredentialsToken(srv, as, client.client_id, client.client_secret);
    const stored = await srv.deps.stores.oauth.refreshTokensOfClient(client.client_id);
    expect(JSON.stringify(stored)).not.toContain(t.refresh_token);
    const later = new Date(Date.now() + (srv.config.oauth.refreshTokenIdleSeconds + 1) * 1000);
    const caller = { clientId: client.client_id, retryWindowMs: 0 };
    await expect(
      refreshTokenGrant(srv.deps.stores, caller, t.refresh_token!, new Map(), srv.config, srv.deps.purposeKeys, srv.signingKeys, later, srv.deps.logger),
    ).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // Refused for its age alone: the same token, not consumed by the refusal, still refreshes now.
    await expect(
      refreshTokenGrant(srv.deps.stores, caller, t.refresh_token!, new Map(), srv.config, srv.deps.purposeKeys, srv.signingKeys, new Date(), srv.deps.logger),
    ).resolves.toMatchObject({
      token_type: 'Bearer',
    });
  });
});

describe('master-secret rotation (SECRETS_ENCRYPTION_KEY_PREVIOUS)', () => {
  test('a refresh token from before the rotation still refreshes after it; a retry in the window gets the pair sealed before it', async () => {
    const t = await clientCredentialsToken(srv, as, client.client_id, client.client_secret);
    // A retry window, as people's clients have, so the first rotation seals its pair under the old master.
    const caller = { clientId: client.client_id, retryWindowMs: REFRESH_RETRY_WINDOW_MS };
    const now = Date.now();
    const first = await refreshTokenGrant(
      srv.deps.stores,
      caller,
      t.refresh_token!,
      new Map(),
      srv.config,
      srv.deps.purposeKeys,
      srv.signingKeys,
      new Date(now),
      srv.deps.logger,
    );
    const rotated = testConfig({
      ...OAUTH_ENV,
      MONGODB_URI: srv.config.mongodbUri,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SECRETS_ENCRYPTION_KEY_PREVIOUS: srv.config.secretsKey.toString('base64'),
    });
    // A replica started with the rotated settings: its signing keys open the key sealed under the old master.
    const rotatedPurposeKeys = purposeKeysOf(rotated);
    const rotatedKeys = new SigningKeys(srv.deps.stores, rotated, rotatedPurposeKeys);
    expect(
      await refreshTokenGrant(
        srv.deps.stores,
        caller,
        t.refresh_token!,
        new Map(),
        rotated,
        rotatedPurposeKeys,
        rotatedKeys,
        new Date(now + 1000),
        srv.deps.logger,
      ),
    ).toEqual(first);
    // The successor rotates under the new master; its access token is signed by the key sealed under the old one.
    const next = await refreshTokenGrant(
      srv.deps.stores,
      caller,
      first.refresh_token!,
      new Map(),
      rotated,
      rotatedPurposeKeys,
      rotatedKeys,
      new Date(now + 2000),
      srv.deps.logger,
    );
    expect(next.refresh_token).not.toBe(first.refresh_token);
    const { payload } = await jwtVerify(next.access_token, createLocalJWKSet(await jwksOf()), { issuer: AUTH_URL, audience: RESOURCE, typ: 'at+jwt' });
    expect(payload).toMatchObject({ client_id: client.client_id, scope: 'mcp:tools' });
  });
});

describe('operator lifecycle', () => {
  test('rotation: both secrets work during the grace period; grace 0 ends the old one at once', async () => {
    const c = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 100 }, new Date());
    const rotated = await rotateClientSecret(srv.deps.stores, c.client_id, 3600, new Date());
    expect(rotated.client_secret).not.toBe(c.client_secret);
    expect(new Date(rotated.previous_secret_expires_at!).getTime()).toBeGreaterThan(Date.now() + 3500_000);
    expect((await tokenRequest(srv, { ...ccForm(), client_id: c.client_id, client_secret: c.client_secret })).status).toBe(200);
    expect((await tokenRequest(srv, { ...ccForm(), client_id: c.client_id, client_secret: rotated.client_secret })).status).toBe(200);
    const again = await rotateClientSecret(srv.deps.stores, c.client_id, 0, new Date());
    expect((await tokenRequest(srv, { ...ccForm(), client_id: c.client_id, client_secret: rotated.client_secret })).status).toBe(401);
    expect((await tokenRequest(srv, { ...ccForm(), client_id: c.client_id, client_secret: c.client_secret })).status).toBe(401);
    expect((await tokenRequest(srv, { ...ccForm(), client_id: c.client_id, client_secret: again.client_secret })).status).toBe(200);
  });

  test('revocation: no new tokens and refresh tokens stop working at once', async () => {
    const c = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 100 }, new Date());
    const form = { ...ccForm(), client_id: c.client_id, client_secret: c.client_secret };
    const issued = await tokenRequest(srv, form);
    expect(issued.status).toBe(200);
    await revokeClient(srv.deps.stores, c.client_id, new Date());
    expect((await tokenRequest(srv, form)).json.error).toBe('invalid_client');
    const refresh = await tokenRequest(srv, {
      grant_type: 'refresh_token',
      refresh_token: issued.json.refresh_token,
      client_id: c.client_id,
      client_secret: c.client_secret,
    });
    expect(refresh.status).toBe(401);
  });

  test('signing-key rotation: tokens signed by the old key still verify; new tokens use the new kid; both are published', async () => {
    const before = await tokenRequest(srv, ccForm());
    const oldKid = decodeProtectedHeader(before.json.access_token).kid;
    const { kid } = await srv.signingKeys.rotate(new Date());
    const after = await tokenRequest(srv, ccForm());
    expect(decodeProtectedHeader(after.json.access_token).kid).toBe(kid);
    const jwks = createLocalJWKSet(await jwksOf());
    await expect(jwtVerify(before.json.access_token, jwks)).resolves.toBeDefined();
    await expect(jwtVerify(after.json.access_token, jwks)).resolves.toBeDefined();
    expect(oldKid).not.toBe(kid);
  });
});

describe('per-credential rate limit', () => {
  test('shared across two API replicas: 429 with Retry-After once the minute is used up', async () => {
    const c = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 2 }, new Date());
    const replica: Server = createServer(
      createApp({
        deps: createDeps(srv.config, { logger: testLogger(), store: srv.deps.store }),
        probes: { store: async () => true, temporal: async () => true },
      }).callback(),
    );
    await new Promise<void>((r) => replica.listen(0, '127.0.0.1', r));
    const addr = replica.address();
    const second = { ...srv, url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}` };
    try {
      const form = { ...ccForm(), client_id: c.client_id, client_secret: c.client_secret };
      const results = [];
      // Five requests cross at most one minute boundary, so at most four can be admitted.
      for (let i = 0; i < 5; i++) results.push(await tokenRequest(i % 2 ? second : srv, form));
      const limited = results.filter((r) => r.status === 429);
      expect(limited.length).toBeGreaterThanOrEqual(1);
      expect(results.filter((r) => r.status === 200).length).toBeLessThanOrEqual(4);
      const retryAfter = Number(limited[0].headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(limited[0].json.error).toBe('rate_limited');
    } finally {
      replica.closeAllConnections();
      await new Promise<void>((r) => replica.close(() => r()));
    }
  });
});

describe('npm run token (scripts/fetchToken.ts)', () => {
  test('prints a fresh access token for the client; the secret comes from the environment', async () => {
    const run = promisify(execFile);
    const { stdout } = await run(process.execPath, [...TYPESCRIPT_NODE_ARGS, 'scripts/fetchToken.ts', '--client-id', client.client_id], {
      env: { ...process.env, AUTH_URL: srv.url, MCP_URL: OAUTH_ENV.MCP_URL, M2M_CLIENT_SECRET: client.client_secret },
    });
    const printed = stdout.trim();
    expect(decodeProtectedHeader(printed).typ).toBe('at+jwt');
    const { payload } = await jwtVerify(printed, createLocalJWKSet(await jwksOf()), { audience: RESOURCE });
    expect(payload.client_id).toBe(client.client_id);
    const headers = await run(process.execPath, [...TYPESCRIPT_NODE_ARGS, 'scripts/fetchToken.ts', '--client-id', client.client_id, '--headers'], {
      env: { ...process.env, AUTH_URL: srv.url, MCP_URL: OAUTH_ENV.MCP_URL, M2M_CLIENT_SECRET: client.client_secret },
    });
    expect(JSON.parse(headers.stdout).Authorization).toMatch(/^Bearer ey/);
    await expect(
      run(process.execPath, [...TYPESCRIPT_NODE_ARGS, 'scripts/fetchToken.ts', '--client-id', client.client_id], {
        env: { ...process.env, AUTH_URL: srv.url, MCP_URL: OAUTH_ENV.MCP_URL, M2M_CLIENT_SECRET: 'mcs_wrong' },
      }),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('HTTP 401 invalid_client') });
  }, 120_000);
});
