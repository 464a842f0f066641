import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { closeBrowser, launchBrowser } from '../support/browser';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startLoopbackRedirect, type LoopbackRedirect } from '../support/loopbackRedirect';
import {
  buildAuthorizationUrl,
  callToolServer,
  discoverAuthorizationServer,
  postToken,
  redeemCallback,
  refresh,
  registerPublicClient,
  toolsResource,
} from '../support/publicOAuthClient';
import { createUserWithCli, startSignInApi, uniqueEmail, type CreatedUser } from '../support/signInApi';
import { authorizeInBrowser, setPasswordFromLink, submitWithin } from '../support/signInPages';
import type { TestApi } from '../support/testApi';

/**
 * A person connects a native MCP client through a real
 * browser. The operator creates the person with the CLI, the browser sets the password from the
 * setup link, signs in and consents; the client (oauth4webapi, strict) redeems the code from its
 * loopback redirect and calls the tool server; the refresh grant rotates; the person revokes the
 * application on "Connected applications" and the next tool call is 401.
 */

const PERMISSIONS = ['candidates.search', 'jobs.v1:read'];
const PASSWORD = 'correct horse battery staple 12';

let srv: TestApi;
let tenant: TestTenant;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let loopback: LoopbackRedirect;
let as: oauth.AuthorizationServer;
let user: CreatedUser;
let client: oauth.Client;

beforeAll(async () => {
  srv = await startSignInApi();
  tenant = await createTenant({ credits: 100 });
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  loopback = await startLoopbackRedirect();
  as = await discoverAuthorizationServer(srv);
});
afterAll(async () => {
  await closeBrowser(browser);
  await loopback?.close();
  await srv?.close();
});

async function toolClient(accessToken: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(toolsResource(srv)), { requestInit: { headers: { Authorization: `Bearer ${accessToken}` } } });
  const mcp = new Client({ name: 'sign-in e2e', version: '1.0.0' });
  await mcp.connect(transport);
  return mcp;
}

function whoamiBody(result: Awaited<ReturnType<Client['callTool']>>): any {
  const content = result.content as Array<{ type: string; text: string }>;
  return JSON.parse(content[0].text);
}

let tokens: oauth.TokenEndpointResponse;

test('the authorization server advertises browser sign-in: code + S256, iss, registration, metadata documents', () => {
  expect(as.issuer).toBe(srv.url);
  expect(as.authorization_endpoint).toBe(`${srv.url}/api/oauth/authorize`);
  expect(as.registration_endpoint).toBe(`${srv.url}/api/oauth/register`);
  expect(as.response_types_supported).toEqual(['code']);
  expect(as.code_challenge_methods_supported).toEqual(['S256']);
  expect(as.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
  expect(as.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(['none']));
  expect(as.authorization_response_iss_parameter_supported).toBe(true);
  expect((as as Record<string, unknown>).client_id_metadata_document_supported).toBe(true);
});

test('operator creates a person; the browser sets the password, signs in and consents; the client redeems the code and calls the tools', async () => {
  user = await createUserWithCli(srv, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email: uniqueEmail(), permissions: PERMISSIONS });
  expect(user.setupUrl.startsWith(`${srv.url}/`)).toBe(true);

  expect(await setPasswordFromLink(page, user.setupUrl, PASSWORD)).toBeLessThan(400);
  // The answer tells the person which address to give their AI application.
  expect(await page.locator('body').innerText()).toContain(toolsResource(srv));
  // The link is one-time: opened again it no longer offers a password form.
  await page.goto(user.setupUrl);
  expect(await page.getByLabel('New password', { exact: true }).count()).toBe(0);

  client = await registerPublicClient(as, [loopback.redirectUri], 'Browser Test Client');
  expect(client.token_endpoint_auth_method).toBe('none');
  const pending = await buildAuthorizationUrl(srv, as, client, loopback.redirectUri);
  const outcome = await authorizeInBrowser(page, pending.url.href, loopback, { email: user.email, password: PASSWORD });
  expect(outcome.signedIn).toBe(true);
  expect(outcome.consented).toBe(true);
  // Consent names the client, the redirect host and what is asked.
  expect(outcome.consentText).toContain('Browser Test Client');
  expect(outcome.consentText).toContain('127.0.0.1');

  // RFC 9207: the issuer comes back with the code, and oauth4webapi compares it with the metadata.
  expect(outcome.callback.searchParams.get('iss')).toBe(srv.url);
  expect(outcome.callback.searchParams.get('state')).toBe(pending.state);
  // The session cookie the browser kept: __Host-, HttpOnly, Secure (loopback http counts as secure), SameSite=Lax.
  // Beside it, the cookie that recognises this browser at the next sign-in (security notices), with the same attributes.
  const cookies = await context.cookies(srv.url);
  expect(
    cookies
      .filter((c) => c.name.startsWith('__Host-'))
      .map((c) => c.name)
      .sort(),
  ).toEqual(['__Host-talent_browser', '__Host-talent_session']);
  const session = cookies.filter((c) => c.name === '__Host-talent_session');
  expect(session[0]).toMatchObject({ path: '/', httpOnly: true, secure: true, sameSite: 'Lax' });
  expect(cookies.find((c) => c.name === '__Host-talent_browser')).toMatchObject({ path: '/', httpOnly: true, secure: true, sameSite: 'Lax' });
  tokens = await redeemCallback(as, client, pending, outcome.callback);
  expect(tokens.token_type).toBe('bearer');
  expect(tokens.refresh_token).toEqual(expect.any(String));

  const { payload, protectedHeader } = await jwtVerify(tokens.access_token, createRemoteJWKSet(new URL(as.jwks_uri!)), {
    issuer: srv.url,
    audience: toolsResource(srv),
    typ: 'at+jwt',
  });
  expect(protectedHeader.alg).toBe('ES256');
  expect(payload).toMatchObject({ sub: user.userId, client_id: client.client_id, scope: 'mcp:tools' });

  const mcp = await toolClient(tokens.access_token);
  const listed = await mcp.listTools();
  expect(listed.tools.map((t) => t.name)).toContain('whoami');
  const me = await mcp.callTool({ name: 'whoami', arguments: {} });
  expect(me.isError).toBeFalsy();
  // The tool server acts as the person's organization and workspace with the person's permissions.
  const body = whoamiBody(me);
  expect(JSON.stringify(body)).toContain(tenant.orgId);
  expect(JSON.stringify(body)).toContain(tenant.workspaceId);
  for (const p of PERMISSIONS) expect(JSON.stringify(body)).toContain(p);
  expect(JSON.stringify(body)).not.toContain('webhooks.v1:manage');
  // A tool beyond the person's permissions is a tool error naming insufficient_scope, not a transport failure.
  const beyond = await mcp.callTool({ name: 'unlock_profile', arguments: { profile_id: 'prf_none' } });
  expect(beyond.isError).toBe(true);
  expect(JSON.stringify(beyond.content)).toContain('insufficient_scope');
  await mcp.close();
});

test('the refresh grant rotates the refresh token, and the new access token reaches the tools', async () => {
  const rotated = await refresh(as, client, tokens.refresh_token!);
  expect(rotated.refresh_token).toEqual(expect.any(String));
  expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
  expect(rotated.access_token).not.toBe(tokens.access_token);
  const res = await callToolServer(srv, rotated.access_token);
  expect(res.status).toBe(200);
  expect(res.text).toContain(tenant.orgId);
  tokens = rotated;
});

test('consent is remembered: with a session, the next authorization goes straight back with a code', async () => {
  const pending = await buildAuthorizationUrl(srv, as, client, loopback.redirectUri);
  const outcome = await authorizeInBrowser(page, pending.url.href, loopback, { email: user.email, password: PASSWORD });
  expect(outcome.signedIn).toBe(false);
  expect(outcome.consented).toBe(false);
  const again = await redeemCallback(as, client, pending, outcome.callback);
  expect((await callToolServer(srv, again.access_token)).status).toBe(200);
});

test('"Connected applications" lists the grant; "Revoke" makes the next tool call 401 and ends the refresh chain', async () => {
  const before = await callToolServer(srv, tokens.access_token);
  expect(before.status).toBe(200);

  await page.goto(`${srv.url}/api/oauth/connections`);
  await page.getByRole('heading', { name: 'Connected applications' }).waitFor();
  const row = page.getByRole('row').filter({ hasText: 'Browser Test Client' });
  expect(await row.count()).toBe(1);
  await submitWithin(row, 'Revoke');
  await page.getByRole('heading', { name: 'Connected applications' }).waitFor();
  expect(await page.locator('body').innerText()).not.toContain('Browser Test Client');

  const after = await callToolServer(srv, tokens.access_token);
  expect(after.status).toBe(401);
  expect(after.challenge).toMatch(/^Bearer /);
  expect(after.challenge).toContain(`resource_metadata="${srv.url}/.well-known/oauth-protected-resource/tools"`);
  expect(after.challenge).toContain('scope="mcp:tools"');
  const refreshed = await postToken(srv, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: client.client_id });
  expect(refreshed.status).toBe(400);
  expect(refreshed.json.error).toBe('invalid_grant');
});

test('after Revoke the application asks for consent again', async () => {
  const pending = await buildAuthorizationUrl(srv, as, client, loopback.redirectUri);
  const outcome = await authorizeInBrowser(page, pending.url.href, loopback, { email: user.email, password: PASSWORD });
  expect(outcome.consented).toBe(true);
  await redeemCallback(as, client, pending, outcome.callback);
});

test('"Deny" sends the client access_denied with state and iss, and no code', async () => {
  const other = await registerPublicClient(as, [loopback.redirectUri], 'Denied Client');
  const pending = await buildAuthorizationUrl(srv, as, other, loopback.redirectUri);
  const outcome = await authorizeInBrowser(page, pending.url.href, loopback, { email: user.email, password: PASSWORD }, 'Deny');
  expect(outcome.callback.searchParams.get('error')).toBe('access_denied');
  expect(outcome.callback.searchParams.get('state')).toBe(pending.state);
  expect(outcome.callback.searchParams.get('iss')).toBe(srv.url);
  expect(outcome.callback.searchParams.get('code')).toBeNull();
  expect(() => oauth.validateAuthResponse(as, other, outcome.callback, pending.state)).toThrow();
});

describe('what real MCP clients send', () => {
  test('VS Code: its registration document, then a loopback redirect to "/" on a port it picks at sign-in time', async () => {
    const rootLoopback = await startLoopbackRedirect('/');
    try {
      // VS Code's dynamic registration body (its fetchDynamicRegistration), ports as it sends them.
      const vscode = await registerPublicClient(
        as,
        ['https://insiders.vscode.dev/redirect', 'https://vscode.dev/redirect', 'http://127.0.0.1/', 'http://127.0.0.1:33418/'],
        'Visual Studio Code',
        { client_uri: 'https://code.visualstudio.com', scope: 'mcp:tools', application_type: 'native' },
      );
      const pending = await buildAuthorizationUrl(srv, as, vscode, rootLoopback.redirectUri);
      const outcome = await authorizeInBrowser(page, pending.url.href, rootLoopback, { email: user.email, password: PASSWORD });
      expect(outcome.consentText).toContain('Visual Studio Code');
      const t = await redeemCallback(as, vscode, pending, outcome.callback);
      expect((await callToolServer(srv, t.access_token)).status).toBe(200);
    } finally {
      await rootLoopback.close();
    }
  });

  test('Claude Code: registered with http://localhost:<port>/callback, signs in later on another port', async () => {
    const claudeCode = await registerPublicClient(as, ['http://localhost:40123/callback'], 'Claude Code (talent)');
    const redirectUri = `http://localhost:${loopback.port}/callback`;
    const pending = await buildAuthorizationUrl(srv, as, claudeCode, redirectUri);
    const outcome = await authorizeInBrowser(page, pending.url.href, loopback, { email: user.email, password: PASSWORD });
    expect(outcome.callback.host).toBe(`localhost:${loopback.port}`);
    const t = await redeemCallback(as, claudeCode, pending, outcome.callback);
    expect((await callToolServer(srv, t.access_token)).status).toBe(200);
  });
});
