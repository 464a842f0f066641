import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import type { Browser } from 'playwright-core';
import { closeBrowser, contextPerFile, launchBrowser } from '../support/browser';
import { BrowserOAuthProvider } from '../support/browserOAuthProvider';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver';
import { startLoopbackRedirect, type LoopbackRedirect } from '../support/loopbackRedirect';
import { adminCli, createUserWithCli, startSignInApi, uniqueEmail, type CreatedUser } from '../support/signInApi';
import { setPasswordOverHttp } from '../support/signInPages';
import type { TestApi } from '../support/testApi';

/**
 * The official MCP SDK client's own OAuth support connects
 * end to end — a 401 from the tool server, discovery from its challenge, registration (dynamic,
 * or a Client ID Metadata Document on a local HTTPS server), authorization in a real browser,
 * the token, `tools/list` and a tool call.
 */

const PASSWORD = 'a long enough password 4 tests';

let srv: TestApi;
let tenant: TestTenant;
let browser: Browser;
let loopback: LoopbackRedirect;
let metadataHost: HttpsReceiver;
let person: CreatedUser;

const CIMD_NAME = 'Metadata Document Client';
let cimdUrl: string;

beforeAll(async () => {
  metadataHost = await startHttpsReceiver();
  loopback = await startLoopbackRedirect();
  cimdUrl = `${metadataHost.url}/client.json`;
  metadataHost.respond((req) => {
    if (req.method === 'GET' && req.path === '/impostor.json') {
      // Served at one URL but naming another client: must not be taken for either.
      return {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ client_id: cimdUrl, client_name: 'Impostor', redirect_uris: [loopback.redirectUri] }),
      };
    }
    if (req.method !== 'GET' || req.path !== '/client.json') return { status: 404 };
    return {
      status: 200,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        client_id: cimdUrl,
        client_name: CIMD_NAME,
        redirect_uris: [loopback.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      }),
    };
  });
  // Metadata documents are fetched with the webhook destination rules; the test relaxes them
  // exactly as the webhook tests do (trust the receiver's certificate, allow loopback).
  srv = await startSignInApi({ WEBHOOK_EXTRA_CA_FILE: metadataHost.caFile, WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8' });
  tenant = await createTenant({ credits: 100 });
  browser = await launchBrowser();
  person = await createUserWithCli(srv, {
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    email: uniqueEmail('sdk'),
    permissions: ['candidates.search'],
  });
  expect(await setPasswordOverHttp(person.setupUrl, PASSWORD)).toBeLessThan(400);
});
afterAll(async () => {
  await closeBrowser(browser);
  await loopback?.close();
  await metadataHost?.close();
  await srv?.close();
});

interface Seen {
  method: string;
  path: string;
  status: number;
}

/** The transport's fetch, recording what the SDK asked for, so discovery from the 401 is visible. */
function recordingFetch(seen: Seen[]): typeof fetch {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const res = await fetch(input, init);
    seen.push({ method: init?.method ?? 'GET', path: url.pathname, status: res.status });
    return res;
  };
}

/** What an MCP host does: connect, be told to authorize, let the user authorize, finish, reconnect. */
async function connectThroughOAuth(provider: BrowserOAuthProvider, seen: Seen[]): Promise<Client> {
  const url = new URL(`${srv.url}/tools`);
  const first = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: recordingFetch(seen) });
  await expect(new Client({ name: 'sdk-oauth-e2e', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
  await first.finishAuth(provider.codeFromCallback(srv.url));
  await first.close();
  const client = new Client({ name: 'sdk-oauth-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: recordingFetch(seen) }));
  return client;
}

async function expectToolsWork(client: Client): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['whoami', 'search_candidates']));
  const me = await client.callTool({ name: 'whoami', arguments: {} });
  expect(me.isError).toBeFalsy();
  expect(JSON.stringify(me.content)).toContain(tenant.orgId);
}

function indexOf(seen: Seen[], method: string, path: string): number {
  return seen.findIndex((s) => s.method === method && s.path === path);
}

const freshContext = contextPerFile(() => browser);

test('dynamic registration: the SDK discovers from the 401, registers, authorizes in the browser, and calls the tools', async () => {
  const seen: Seen[] = [];
  const provider = new BrowserOAuthProvider(await freshContext().newPage(), loopback, { email: person.email, password: PASSWORD }, 'SDK Registered Client');
  const client = await connectThroughOAuth(provider, seen);

  // Discovery started from the tool server's 401 and its resource_metadata challenge.
  expect(seen[0]).toMatchObject({ method: 'POST', path: '/tools', status: 401 });
  const prm = indexOf(seen, 'GET', '/.well-known/oauth-protected-resource/tools');
  const asm = indexOf(seen, 'GET', '/.well-known/oauth-authorization-server');
  const reg = indexOf(seen, 'POST', '/api/oauth/register');
  const tok = indexOf(seen, 'POST', '/api/oauth/token');
  expect(prm).toBeGreaterThan(0);
  expect(asm).toBeGreaterThan(prm);
  expect(reg).toBeGreaterThan(asm);
  expect(tok).toBeGreaterThan(reg);
  expect(seen[reg].status).toBe(201);
  expect(seen[tok].status).toBe(200);

  expect(provider.outcome).toMatchObject({ signedIn: true, consented: true });
  expect(provider.outcome!.consentText).toContain('SDK Registered Client');
  const clientId = provider.saved.client!.client_id;
  expect(clientId).not.toMatch(/^https:/);
  const authorizationUrl = provider.authorizationUrls[0];
  expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
  expect(authorizationUrl.searchParams.get('resource')).toBe(`${srv.url}/tools`);

  const claims = decodeJwt(provider.saved.tokens!.access_token);
  expect(claims).toMatchObject({ sub: person.userId, client_id: clientId, aud: `${srv.url}/tools` });
  await expectToolsWork(client);
  await client.close();
});

test('Client ID Metadata Document: the SDK uses its HTTPS URL as client_id; the server fetches the document and names the client from it', async () => {
  const seen: Seen[] = [];
  const before = metadataHost.requests.length;
  const provider = new BrowserOAuthProvider(
    await freshContext().newPage(),
    loopback,
    { email: person.email, password: PASSWORD },
    'ignored: the document names the client',
    {
      clientMetadataUrl: cimdUrl,
    },
  );
  const client = await connectThroughOAuth(provider, seen);

  expect(seen[0]).toMatchObject({ method: 'POST', path: '/tools', status: 401 });
  expect(indexOf(seen, 'POST', '/api/oauth/register')).toBe(-1);
  expect(provider.saved.client!.client_id).toBe(cimdUrl);
  expect(provider.authorizationUrls[0].searchParams.get('client_id')).toBe(cimdUrl);
  const fetched = metadataHost.requests.slice(before).filter((r) => r.path === '/client.json');
  expect(fetched.length).toBeGreaterThan(0);
  expect(provider.outcome!.consentText).toContain(CIMD_NAME);

  expect(decodeJwt(provider.saved.tokens!.access_token)).toMatchObject({ sub: person.userId, client_id: cimdUrl });
  await expectToolsWork(client);
  await client.close();
});

test('a metadata document that does not name its own URL as client_id is refused with an error page', async () => {
  const impostor = `${metadataHost.url}/impostor.json`;
  const before = metadataHost.requests.length;
  const url = new URL(`${srv.url}/api/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: impostor,
    redirect_uri: loopback.redirectUri,
    scope: 'mcp:tools',
    state: 's',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  expect(await res.text()).not.toContain('Impostor');
  // It was fetched (so the refusal is about its content, not its address).
  expect(metadataHost.requests.slice(before).some((r) => r.path === '/impostor.json')).toBe(true);
});

test("a grant revoked by the operator stops the SDK's next call, and the SDK asks the person again", async () => {
  const seen: Seen[] = [];
  const provider = new BrowserOAuthProvider(await freshContext().newPage(), loopback, { email: person.email, password: PASSWORD }, 'SDK Revoked Client');
  const client = await connectThroughOAuth(provider, seen);
  await expectToolsWork(client);
  const clientId = provider.saved.client!.client_id;

  expect((await adminCli(srv, 'user', 'grants', 'revoke', '--user-id', person.userId, '--client-id', clientId)).status).toBe(0);

  // The next call is refused; the SDK's refresh is refused too, so it starts a new authorization.
  await expect(client.callTool({ name: 'whoami', arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
  expect(provider.authorizationUrls).toHaveLength(2);
  expect(provider.outcome).toMatchObject({ signedIn: false, consented: true });
  await client.close();

  const again = await connectAfterAuthorization(provider, seen);
  await expectToolsWork(again);
  await again.close();
});

async function connectAfterAuthorization(provider: BrowserOAuthProvider, seen: Seen[]): Promise<Client> {
  const url = new URL(`${srv.url}/tools`);
  const transport = new StreamableHTTPClientTransport(url, { authProvider: provider, fetch: recordingFetch(seen) });
  await transport.finishAuth(provider.codeFromCallback(srv.url));
  const client = new Client({ name: 'sdk-oauth-e2e', version: '1.0.0' });
  await client.connect(transport);
  return client;
}
