import { decodeJwt } from 'jose';
import { createClient } from '../../core/oauth/clients';
import { createTenant, type TestTenant } from '../support/fixtures';
import { authorizeAs, newFormPerson, pkcePair } from '../support/formSignIn';
import { startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver';
import { startTestApi, type TestApi } from '../support/testApi';
import { AUTH_URL, MCP_URL, RESOURCE, tokenRequest } from './oauthTestClient';
import { fileStores } from '../support/testStore';

/**
 * One test per failure real MCP clients are known for (from their public
 * issue trackers), each named after it. The server runs as `npm run dev` runs it
 * (NODE_ENV=development, no MCP_ALLOWED_ORIGINS: the loopback origins of a local MCP Inspector
 * are allowed by default).
 */

const INSPECTOR = 'http://localhost:6274';
const MCP_HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
const LIST_TOOLS = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

let srv: TestApi;
let receiver: HttpsReceiver;
let tenant: TestTenant;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  srv = await startTestApi({
    NODE_ENV: 'development',
    AUTH_URL,
    MCP_URL,
    PASSWORD_SCRYPT_LOG2_N: '10',
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOK_EXTRA_CA_FILE: receiver.caFile,
  });
  tenant = await createTenant({ credits: 100 });
});
afterAll(async () => {
  await srv.close();
  await receiver.close();
});

function challengeParams(header: string | null): Record<string, string> {
  expect(header).toMatch(/^Bearer /);
  return Object.fromEntries([...header!.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

async function listTools(accessToken?: string) {
  const res = await fetch(`${srv.url}/tools`, {
    method: 'POST',
    headers: { ...MCP_HEADERS, ...(accessToken ? { Authorization: `Bearer ${accessToken}` } : {}) },
    body: LIST_TOOLS,
  });
  return { status: res.status, challenge: res.headers.get('www-authenticate'), text: await res.text() };
}

/** A metadata path on our server, from an absolute URL the server published under MCP_URL or AUTH_URL. */
const localPath = (absolute: string) => new URL(absolute).pathname;

async function personTokens(clientId: string, redirectUri: string, extra: Record<string, string> = {}) {
  const person = await newFormPerson(srv, tenant, ['candidates.search']);
  const { verifier, challenge } = pkcePair();
  const back = await authorizeAs(person, {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 's1',
    ...extra,
  });
  expect(back.searchParams.get('iss')).toBe(AUTH_URL);
  const tokens = await tokenRequest(srv, {
    grant_type: 'authorization_code',
    code: back.searchParams.get('code')!,
    redirect_uri: redirectUri,
    client_id: clientId,
    code_verifier: verifier,
    ...(extra.resource ? { resource: extra.resource } : {}),
  });
  expect(tokens.status).toBe(200);
  return { person, back, tokens: tokens.json as { access_token: string; refresh_token: string } };
}

async function registerClient(redirectUris: string[], name = 'Known failures client') {
  const res = await fetch(`${srv.url}/api/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      client_name: name,
      redirect_uris: redirectUris,
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { client_id: string; redirect_uris: string[] };
}

describe('known MCP client failures', () => {
  test('relative resource_metadata (claude.ai ignores it): every challenge names an absolute URL that serves the metadata', async () => {
    const noToken = await listTools();
    const badToken = await listTools('not.a.token');
    expect(noToken.status).toBe(401);
    expect(badToken.status).toBe(401);
    for (const header of [noToken.challenge, badToken.challenge]) {
      const params = challengeParams(header);
      expect(params.resource_metadata).toBe(`${MCP_URL}/.well-known/oauth-protected-resource/tools`);
      expect(new URL(params.resource_metadata).href).toBe(params.resource_metadata); // absolute
      expect(params.scope).toBe('mcp:tools');
      const metadata = await fetch(`${srv.url}${localPath(params.resource_metadata)}`);
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toMatchObject({ resource: RESOURCE, authorization_servers: [AUTH_URL] });
    }
    expect(challengeParams(badToken.challenge).error).toBe('invalid_token');
  });

  test('path-inserted metadata (and the root and OpenID locations a client falls back to) all answer, so no client guesses {origin}/authorize', async () => {
    const pathInserted = await fetch(`${srv.url}/.well-known/oauth-protected-resource/tools`);
    const root = await fetch(`${srv.url}/.well-known/oauth-protected-resource`);
    expect(pathInserted.status).toBe(200);
    expect(root.status).toBe(200);
    const resourceMetadata = await pathInserted.json();
    expect(await root.json()).toEqual(resourceMetadata);
    expect(resourceMetadata).toMatchObject({ resource: RESOURCE, authorization_servers: [AUTH_URL], scopes_supported: ['mcp:tools'] });

    const rfc8414 = await fetch(`${srv.url}/.well-known/oauth-authorization-server`);
    const openid = await fetch(`${srv.url}/.well-known/openid-configuration`);
    expect(rfc8414.status).toBe(200);
    expect(openid.status).toBe(200);
    const asMetadata = await rfc8414.json();
    expect(await openid.json()).toEqual(asMetadata);
    expect(asMetadata).toMatchObject({
      issuer: AUTH_URL,
      authorization_endpoint: `${AUTH_URL}/api/oauth/authorize`,
      token_endpoint: `${AUTH_URL}/api/oauth/token`,
      registration_endpoint: `${AUTH_URL}/api/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    // Case matters, like every route: a miscased path is not a second metadata location.
    expect((await fetch(`${srv.url}/.well-known/OAuth-Protected-Resource/tools`)).status).toBe(404);
  });

  test('trailing-slash resource (Claude Code) names the same tool server at the authorization and token endpoints; aud stays canonical', async () => {
    const client = await registerClient(['http://127.0.0.1/callback'], 'Claude Code');
    const { tokens } = await personTokens(client.client_id, 'http://127.0.0.1:33418/callback', { resource: `${RESOURCE}/` });
    expect(decodeJwt(tokens.access_token).aud).toBe(RESOURCE);
    expect((await listTools(tokens.access_token)).status).toBe(200);
    const refreshed = await tokenRequest(srv, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.client_id,
      resource: `${RESOURCE}/`,
    });
    expect(refreshed.status).toBe(200);
    expect(decodeJwt(refreshed.json.access_token).aud).toBe(RESOURCE);

    // A machine client too.
    const m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 100 }, new Date());
    const cc = await tokenRequest(srv, {
      grant_type: 'client_credentials',
      client_id: m2m.client_id,
      client_secret: m2m.client_secret,
      scope: 'mcp:tools',
      resource: `${RESOURCE}/`,
    });
    expect(cc.status).toBe(200);
    expect(decodeJwt(cc.json.access_token).aud).toBe(RESOURCE);
    // Anything else is still another resource.
    const other = await tokenRequest(srv, {
      grant_type: 'client_credentials',
      client_id: m2m.client_id,
      client_secret: m2m.client_secret,
      scope: 'mcp:tools',
      resource: `${RESOURCE}//`,
    });
    expect(other.json.error).toBe('invalid_target');
  });

  test.each([
    ['/tools', 'POST', 'authorization, content-type, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name'],
    ['/.well-known/oauth-protected-resource/tools', 'GET', 'mcp-protocol-version'],
    ['/.well-known/oauth-protected-resource', 'GET', 'mcp-protocol-version'],
    ['/.well-known/oauth-authorization-server', 'GET', 'mcp-protocol-version'],
    ['/.well-known/openid-configuration', 'GET', 'mcp-protocol-version'],
    ['/api/oauth/token', 'POST', 'content-type'],
    ['/api/oauth/register', 'POST', 'content-type'],
  ])("CORS preflight from the Inspector's origin (%s) is answered before authentication", async (path, method, requestHeaders) => {
    const res = await fetch(`${srv.url}${path}`, {
      method: 'OPTIONS',
      headers: { Origin: INSPECTOR, 'Access-Control-Request-Method': method, 'Access-Control-Request-Headers': requestHeaders },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(INSPECTOR);
    expect(res.headers.get('access-control-allow-methods')).toContain(method);
    const allowed = res.headers.get('access-control-allow-headers')!.toLowerCase().split(/,\s*/);
    for (const h of requestHeaders.split(/,\s*/)) expect(allowed).toContain(h);
    const exposed = res.headers.get('access-control-expose-headers')!.toLowerCase().split(/,\s*/);
    for (const h of ['www-authenticate', 'mcp-session-id', 'mcp-protocol-version', 'mcp-method', 'mcp-name']) expect(exposed).toContain(h);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });

  test("CORS from the Inspector's origin: the 401 challenge itself is readable by the page", async () => {
    const res = await fetch(`${srv.url}/tools`, { method: 'POST', headers: { ...MCP_HEADERS, Origin: INSPECTOR }, body: LIST_TOOLS });
    expect(res.status).toBe(401);
    expect(res.headers.get('access-control-allow-origin')).toBe(INSPECTOR);
    expect(res.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    expect(challengeParams(res.headers.get('www-authenticate')).resource_metadata).toMatch(/^http:\/\//);
  });

  test('parallel refresh of one token by parallel sessions: every session gets the same new pair and the chain lives on', async () => {
    const client = await registerClient(['http://127.0.0.1/callback'], 'Parallel sessions');
    const { tokens } = await personTokens(client.client_id, 'http://127.0.0.1:41000/callback');
    const refresh = (token: string) => tokenRequest(srv, { grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id });
    const results = await Promise.all(Array.from({ length: 6 }, () => refresh(tokens.refresh_token)));
    for (const r of results) expect(r.status).toBe(200);
    const pairs = new Set(results.map((r) => `${r.json.access_token} ${r.json.refresh_token}`));
    expect(pairs.size).toBe(1);
    expect(results[0].json.refresh_token).not.toBe(tokens.refresh_token);
    // Not revoked: the new access token works and the new refresh token rotates again.
    expect((await listTools(results[0].json.access_token)).status).toBe(200);
    const next = await refresh(results[0].json.refresh_token);
    expect(next.status).toBe(200);
    expect((await listTools(next.json.access_token)).status).toBe(200);
  });

  test('a per-connector redirect URI (ChatGPT, https://chatgpt.com/connector/oauth/<id>) registered dynamically: the flow ends at that connector only', async () => {
    const connector = 'https://chatgpt.com/connector/oauth/c_6f1a2b3c4d5e';
    const client = await registerClient([connector], 'ChatGPT');
    expect(client.redirect_uris).toEqual([connector]);
    const { back, tokens } = await personTokens(client.client_id, connector);
    expect(`${back.origin}${back.pathname}`).toBe(connector);
    expect(back.searchParams.get('state')).toBe('s1');
    expect((await listTools(tokens.access_token)).status).toBe(200);
    // Another connector's URI is not this client's: an error page, never a redirect.
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: 'https://chatgpt.com/connector/oauth/c_other',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
    });
    const other = await fetch(`${srv.url}/api/oauth/authorize?${q}`, { redirect: 'manual' });
    expect(other.status).toBe(400);
    expect(other.headers.get('location')).toBeNull();
  });

  test('a per-connector redirect URI (ChatGPT) named by a Client ID Metadata Document: the flow ends at that connector', async () => {
    srv.publicClients.forgetDocuments();
    const docUrl = `${receiver.url}/chatgpt/client.json`;
    const connector = 'https://chatgpt.com/connector/oauth/c_0a9b8c7d6e5f';
    receiver.respond(() => ({
      status: 200,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        client_id: docUrl,
        client_name: 'ChatGPT',
        redirect_uris: [connector],
        grant_types: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_method: 'none',
      }),
    }));
    const { back, tokens } = await personTokens(docUrl, connector);
    expect(`${back.origin}${back.pathname}`).toBe(connector);
    expect(decodeJwt(tokens.access_token)).toMatchObject({ client_id: docUrl, aud: RESOURCE });
    expect((await listTools(tokens.access_token)).status).toBe(200);
  });

  test.each([
    ['/tools', 'POST'],
    ['/api/oauth/token', 'POST'],
    ['/api/oauth/register', 'POST'],
    ['/.well-known/oauth-protected-resource/tools', 'GET'],
    ['/tools', 'OPTIONS'],
  ])('a foreign Origin is refused with 403 before any work (%s %s)', async (path, method) => {
    const headers: Record<string, string> = { Origin: 'http://evil.example.com' };
    if (method === 'OPTIONS') headers['Access-Control-Request-Method'] = 'POST';
    if (method === 'POST') headers['Content-Type'] = 'application/json';
    const res = await fetch(`${srv.url}${path}`, { method, headers, body: method === 'POST' ? LIST_TOOLS : undefined });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(await res.json()).toMatchObject({ code: 'origin_not_allowed' });
  });
});
