import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { sha256Hex } from '../../core/crypto/hash';
import { closeBrowser, launchBrowser } from '../support/browser';
import { createTenant, type TestTenant } from '../support/fixtures';
import { startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver';
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
  type PendingAuthorization,
} from '../support/publicOAuthClient';
import { adminCli, createUserWithCli, startSignInApi, uniqueEmail, type CreatedUser } from '../support/signInApi';
import { authorizeInBrowser, setPasswordFromLink, submitWith, submitWithin } from '../support/signInPages';
import type { TestApi } from '../support/testApi';

/**
 * Every refusal of the browser sign-in, each its own test.
 * HTTP-level wherever a browser adds nothing: once the person has signed in and consented in
 * the browser, its session cookie lets plain requests collect codes from the authorization
 * endpoint, as the browser would after a remembered consent.
 */

const PASSWORD = 'refusals need a real password';
const CLAUDE_CALLBACK = 'https://claude.ai/api/mcp/auth_callback';

let srv: TestApi;
let tenant: TestTenant;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let loopback: LoopbackRedirect;
let metadataHost: HttpsReceiver;
let as: oauth.AuthorizationServer;
let person: CreatedUser;
let client: oauth.Client;

beforeAll(async () => {
  metadataHost = await startHttpsReceiver();
  loopback = await startLoopbackRedirect();
  // The metadata host's certificate is trusted, but no private range is allowed: an address
  // check is the only thing that can refuse its documents. Passwords are hashed at the lowest
  // cost the config allows: what is refused here does not depend on it, and each sign-in and
  // password set would spend a tenth of a second of CPU at the default.
  srv = await startSignInApi({ WEBHOOK_EXTRA_CA_FILE: metadataHost.caFile, PASSWORD_SCRYPT_LOG2_N: '10' });
  tenant = await createTenant({ credits: 100 });
  browser = await launchBrowser();
  context = await browser.newContext();
  page = await context.newPage();
  as = await discoverAuthorizationServer(srv);
  person = await createUserWithCli(srv, {
    orgId: tenant.orgId,
    workspaceId: tenant.workspaceId,
    email: uniqueEmail('refusals'),
    permissions: ['candidates.search'],
  });
  expect(await setPasswordFromLink(page, person.setupUrl, PASSWORD)).toBeLessThan(400);
  client = await registerPublicClient(as, [loopback.redirectUri, CLAUDE_CALLBACK], 'Refusal Test Client');
  // Sign in and consent once in the browser; later codes come from the remembered consent.
  await authorizeInBrowser(page, (await buildAuthorizationUrl(srv, as, client, loopback.redirectUri)).url.href, loopback, {
    email: person.email,
    password: PASSWORD,
  });
});
afterAll(async () => {
  await closeBrowser(browser);
  await loopback?.close();
  await metadataHost?.close();
  await srv?.close();
});

async function cookieHeader(ctx: BrowserContext = context): Promise<string> {
  return (await ctx.cookies(srv.url)).map((c) => `${c.name}=${c.value}`).join('; ');
}

/** The authorization endpoint as the signed-in browser reaches it, without following the redirect. */
async function authorizeOverHttp(url: URL | string, cookie?: string) {
  const res = await fetch(url, { redirect: 'manual', headers: { Cookie: cookie ?? (await cookieHeader()), Accept: 'text/html' } });
  return {
    status: res.status,
    location: res.headers.get('location'),
    contentType: res.headers.get('content-type') ?? '',
    csp: res.headers.get('content-security-policy') ?? '',
    text: await res.text(),
  };
}

const SIGN_IN_PATH = '/api/oauth/signin';
const CONSENT_PATH = '/api/oauth/consent';

/** Follows one same-server redirect (authorize → sign-in or consent page) and returns that page. */
async function pageBehind(res: Awaited<ReturnType<typeof authorizeOverHttp>>, cookie: string) {
  expect([302, 303]).toContain(res.status);
  return authorizeOverHttp(new URL(res.location!, srv.url), cookie);
}

async function freshCode(c: oauth.Client = client, overrides: Record<string, string | null> = {}): Promise<{ pending: PendingAuthorization; callback: URL }> {
  const pending = await buildAuthorizationUrl(srv, as, c, loopback.redirectUri, overrides);
  const res = await authorizeOverHttp(pending.url);
  if (![302, 303].includes(res.status) || !res.location) throw new Error(`expected a redirect with a code, got ${res.status}: ${res.text.slice(0, 300)}`);
  return { pending, callback: new URL(res.location) };
}

const codeForm = (pending: PendingAuthorization, callback: URL, extra: Record<string, string> = {}) => ({
  grant_type: 'authorization_code',
  code: callback.searchParams.get('code')!,
  redirect_uri: pending.redirectUri,
  code_verifier: pending.codeVerifier,
  client_id: client.client_id,
  ...extra,
});

/** An error page: the person sees the problem; nothing is sent anywhere. */
function expectErrorPage(res: Awaited<ReturnType<typeof authorizeOverHttp>>): void {
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.location).toBeNull();
  expect(res.contentType).toContain('text/html');
}

/** An RFC 6749 4.1.2.1 error redirect to the client, with state and the RFC 9207 issuer. */
function expectErrorRedirect(res: Awaited<ReturnType<typeof authorizeOverHttp>>, pending: PendingAuthorization, error: string): void {
  expect([302, 303]).toContain(res.status);
  const to = new URL(res.location!);
  expect(`${to.origin}${to.pathname}`).toBe(pending.redirectUri);
  expect(to.searchParams.get('error')).toBe(error);
  expect(to.searchParams.get('state')).toBe(pending.state);
  expect(to.searchParams.get('iss')).toBe(srv.url);
  expect(to.searchParams.get('code')).toBeNull();
}

test('control: the signed-in browser session gets a code that redeems (so the refusals below refuse for their own reason)', async () => {
  const { pending, callback } = await freshCode();
  expect(callback.searchParams.get('iss')).toBe(srv.url);
  const tokens = await redeemCallback(as, client, pending, callback);
  expect((await callToolServer(srv, tokens.access_token)).status).toBe(200);
});

test('a request without resource means the tool server', async () => {
  const { pending, callback } = await freshCode(client, { resource: null });
  const tokens = await redeemCallback(as, client, pending, callback);
  expect(JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString()).aud).toBe(toolsResource(srv));
});

test('wrong PKCE verifier: invalid_grant', async () => {
  const { pending, callback } = await freshCode();
  const res = await postToken(srv, codeForm(pending, callback, { code_verifier: oauth.generateRandomCodeVerifier() }));
  expect(res.status).toBe(400);
  expect(res.json.error).toBe('invalid_grant');
  // oauth4webapi, strict, sees the same refusal.
  await expect(redeemCallback(as, client, pending, callback, oauth.generateRandomCodeVerifier())).rejects.toMatchObject({ error: 'invalid_grant' });
});

test('PKCE is required and S256 only: no challenge, or plain, is invalid_request at the redirect', async () => {
  const none = await buildAuthorizationUrl(srv, as, client, loopback.redirectUri, { code_challenge: null, code_challenge_method: null });
  expectErrorRedirect(await authorizeOverHttp(none.url), none, 'invalid_request');
  const plain = await buildAuthorizationUrl(srv, as, client, loopback.redirectUri, { code_challenge_method: 'plain', code_challenge: 'a'.repeat(43) });
  expectErrorRedirect(await authorizeOverHttp(plain.url), plain, 'invalid_request');
});

test('a reused code is refused, and the reuse revokes the tokens its first use issued', async () => {
  const { pending, callback } = await freshCode();
  const first = await postToken(srv, codeForm(pending, callback));
  expect(first.status).toBe(200);
  expect((await callToolServer(srv, first.json.access_token)).status).toBe(200);

  const second = await postToken(srv, codeForm(pending, callback));
  expect(second.status).toBe(400);
  expect(second.json.error).toBe('invalid_grant');

  const after = await callToolServer(srv, first.json.access_token);
  expect(after.status).toBe(401);
  expect(after.challenge).toContain('resource_metadata=');
  const refreshed = await postToken(srv, { grant_type: 'refresh_token', refresh_token: first.json.refresh_token, client_id: client.client_id });
  expect(refreshed.status).toBe(400);
  expect(refreshed.json.error).toBe('invalid_grant');
});

test('mismatched redirect URI: an error page at the authorization endpoint, never a redirect; invalid_grant at the token endpoint', async () => {
  const unregistered = await buildAuthorizationUrl(srv, as, client, 'https://app.example.com/callback');
  expectErrorPage(await authorizeOverHttp(unregistered.url));

  const { pending, callback } = await freshCode();
  const res = await postToken(srv, codeForm(pending, callback, { redirect_uri: `http://127.0.0.1:${loopback.port}/other` }));
  expect(res.status).toBe(400);
  expect(res.json.error).toBe('invalid_grant');
});

test('a loopback redirect matches on any port (RFC 8252 7.3), and only on the loopback', async () => {
  const otherPort = loopback.port === 65000 ? 65001 : 65000;
  const pending = await buildAuthorizationUrl(srv, as, client, `http://127.0.0.1:${otherPort}/callback`);
  const res = await authorizeOverHttp(pending.url);
  expect([302, 303]).toContain(res.status);
  expect(res.location!.startsWith(`http://127.0.0.1:${otherPort}/callback?`)).toBe(true);
});

test("Claude's hosted callback, registered, gets its code there", async () => {
  const pending = await buildAuthorizationUrl(srv, as, client, CLAUDE_CALLBACK);
  const res = await authorizeOverHttp(pending.url);
  expect([302, 303]).toContain(res.status);
  expect(res.location!.startsWith(`${CLAUDE_CALLBACK}?`)).toBe(true);
  expect(new URL(res.location!).searchParams.get('code')).toEqual(expect.any(String));
});

describe('open-redirect attempts are error pages, never redirects', () => {
  const attempts = (port: number): Array<[string, string]> => [
    ['another host', 'https://evil.example/api/mcp/auth_callback'],
    ['a look-alike host under another domain', 'https://claude.ai.evil.example/api/mcp/auth_callback'],
    ['userinfo naming the registered host', 'https://claude.ai@evil.example/api/mcp/auth_callback'],
    ['userinfo on the registered host', 'https://evil.example@claude.ai/api/mcp/auth_callback'],
    ['backslash host confusion', 'https://evil.example\\@claude.ai/api/mcp/auth_callback'],
    ['a fragment', `${CLAUDE_CALLBACK}#@evil.example`],
    ['an extra query naming another site', `${CLAUDE_CALLBACK}?next=https://evil.example/`],
    ['a path suffix', `${CLAUDE_CALLBACK}/../../evil`],
    ['http instead of https', 'http://claude.ai/api/mcp/auth_callback'],
    ['scheme-relative', '//evil.example/api/mcp/auth_callback'],
    ['loopback userinfo trick', `http://127.0.0.1@evil.example:${port}/callback`],
    ['a loopback look-alike host', `http://127.0.0.1.evil.example:${port}/callback`],
    ['https on the loopback where http was registered', `https://127.0.0.1:${port}/callback`],
  ];

  test.each(attempts(0).map(([name], i) => [name, i]))('%s', async (_name, i) => {
    const [, redirectUri] = attempts(loopback.port)[i as number];
    const pending = await buildAuthorizationUrl(srv, as, client, redirectUri);
    const res = await authorizeOverHttp(pending.url);
    expectErrorPage(res);
    expect(res.text).not.toContain('evil.example/');
  });

  test.each([
    ['a non-loopback http redirect', { redirect_uris: ['http://app.example.com/callback'] }],
    ['userinfo in the redirect', { redirect_uris: ['https://user@claude.ai/api/mcp/auth_callback'] }],
    ['a fragment in the redirect', { redirect_uris: ['https://app.example.com/callback#x'] }],
    ['a javascript: URI', { redirect_uris: ['javascript:alert(1)'] }],
    ['a private-use scheme for a web client', { redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/user-callback'], application_type: 'web' }],
  ])('registration refuses %s', async (_name, extra) => {
    const res = await fetch(as.registration_endpoint!, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Bad Redirect',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        ...extra,
      }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('invalid_redirect_uri');
  });

  test('registration accepts a private-use scheme for a native client (Cursor)', async () => {
    const native = await registerPublicClient(as, ['cursor://anysphere.cursor-retrieval/oauth/user-callback'], 'Cursor', { application_type: 'native' });
    expect(native.client_id).toEqual(expect.any(String));
  });
});

test('an unknown client is an error page, never a redirect', async () => {
  const pending = await buildAuthorizationUrl(srv, as, { client_id: 'no-such-client' }, loopback.redirectUri);
  expectErrorPage(await authorizeOverHttp(pending.url));
});

test('wrong resource: invalid_target at the redirect, and at the token endpoint', async () => {
  const pending = await buildAuthorizationUrl(srv, as, client, loopback.redirectUri, { resource: 'https://elsewhere.example/tools' });
  expectErrorRedirect(await authorizeOverHttp(pending.url), pending, 'invalid_target');

  const { pending: ok, callback } = await freshCode();
  const res = await postToken(srv, codeForm(ok, callback, { resource: 'https://elsewhere.example/tools' }));
  expect(res.status).toBe(400);
  expect(res.json.error).toBe('invalid_target');
});

test('an expired code (60 s) is invalid_grant', async () => {
  const { pending, callback } = await freshCode();
  const id = sha256Hex(callback.searchParams.get('code')!);
  const stored = await srv.deps.stores.oauth.findAuthorizationCode(id);
  expect(stored).not.toBeNull();
  const lifetime = stored!.expiresAt.getTime() - Date.now();
  expect(lifetime).toBeGreaterThan(0);
  expect(lifetime).toBeLessThanOrEqual(60_000);
  // Age the code instead of waiting out its minute.
  expect(await srv.deps.stores.oauth.expireAuthorizationCodes(new Date(Date.now() - 1000), id)).toBe(1);

  const res = await postToken(srv, codeForm(pending, callback));
  expect(res.status).toBe(400);
  expect(res.json.error).toBe('invalid_grant');
});

describe('CSRF: a form posted without its token is 403 and changes nothing', () => {
  /** Removes the forms' CSRF fields (hidden inputs whose name says csrf); returns how many. */
  async function dropCsrfFields(p: Page): Promise<number> {
    const fields = p.locator('form input[type="hidden"][name*="csrf" i]');
    const n = await fields.count();
    await fields.evaluateAll((inputs: Array<{ remove: () => void }>) => inputs.forEach((input) => input.remove()));
    expect(await fields.count()).toBe(0);
    return n;
  }

  async function postWithout(p: Page, button: string, within?: Locator): Promise<number> {
    expect(await dropCsrfFields(p)).toBeGreaterThan(0);
    const [answer] = await Promise.all([
      p.waitForResponse((r) => r.request().method() === 'POST' && r.request().isNavigationRequest()),
      within ? submitWithin(within, button) : submitWith(p, button),
    ]);
    return answer.status();
  }

  test('sign-in: 403 and no session', async () => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    const pending = await buildAuthorizationUrl(srv, as, client, loopback.redirectUri);
    await p.goto(pending.url.href);
    await p.getByLabel('Email', { exact: true }).fill(person.email);
    await p.getByLabel('Password', { exact: true }).fill(PASSWORD);
    expect(await postWithout(p, 'Sign in')).toBe(403);
    // Not signed in: the same request still asks for a sign-in and gives no code.
    const again = await authorizeOverHttp(pending.url, await cookieHeader(ctx));
    expect(again.location).toContain(`${SIGN_IN_PATH}?`);
    await ctx.close();
  });

  test('consent: 403, no redirect to the client, no grant remembered', async () => {
    const fresh = await registerPublicClient(as, [loopback.redirectUri], 'CSRF Consent Client');
    const pending = await buildAuthorizationUrl(srv, as, fresh, loopback.redirectUri);
    const before = loopback.callbacks.length;
    await page.goto(pending.url.href);
    await page.getByRole('button', { name: 'Allow', exact: true }).waitFor();
    expect(await postWithout(page, 'Allow')).toBe(403);
    expect(loopback.callbacks.length).toBe(before);
    const again = await authorizeOverHttp(pending.url);
    expect(again.location).toContain(`${CONSENT_PATH}?`);
  });

  test('revoke on Connected applications: 403 and the application stays connected', async () => {
    await page.goto(`${srv.url}/api/oauth/connections`);
    const row = page.getByRole('row').filter({ hasText: 'Refusal Test Client' });
    expect(await row.count()).toBe(1);
    expect(await postWithout(page, 'Revoke', row)).toBe(403);
    const { pending, callback } = await freshCode();
    expect((await callToolServer(srv, (await redeemCallback(as, client, pending, callback)).access_token)).status).toBe(200);
  });

  test('set password: 403, and the setup link still works afterwards', async () => {
    const fresh = await createUserWithCli(srv, {
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      email: uniqueEmail('csrf-setup'),
      permissions: ['candidates.search'],
    });
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    await p.goto(fresh.setupUrl);
    await p.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await p.getByLabel('Confirm password', { exact: true }).fill(PASSWORD);
    expect(await postWithout(p, 'Set password')).toBe(403);
    expect(await setPasswordFromLink(p, fresh.setupUrl, PASSWORD)).toBe(200);
    await ctx.close();
  });
});

describe('framing', () => {
  test("every page says Content-Security-Policy frame-ancestors 'none'", async () => {
    const signInPage = await pageBehind(await authorizeOverHttp((await buildAuthorizationUrl(srv, as, client, loopback.redirectUri)).url, ''), '');
    expect(signInPage.status).toBe(200);
    expect(signInPage.text).toContain('Sign in');
    expect(signInPage.csp).toMatch(/frame-ancestors 'none'/);
    const fresh = await registerPublicClient(as, [loopback.redirectUri], 'Framing Consent Client');
    const consent = await pageBehind(await authorizeOverHttp((await buildAuthorizationUrl(srv, as, fresh, loopback.redirectUri)).url), await cookieHeader());
    expect(consent.status).toBe(200);
    expect(consent.text).toContain('Allow');
    expect(consent.csp).toMatch(/frame-ancestors 'none'/);
    const errorPage = await authorizeOverHttp((await buildAuthorizationUrl(srv, as, client, 'https://evil.example/cb')).url);
    expect(errorPage.csp).toMatch(/frame-ancestors 'none'/);
  });

  test('in the browser, a page that frames the sign-in page does not get it rendered', async () => {
    const signInUrl = (await buildAuthorizationUrl(srv, as, client, loopback.redirectUri)).url.href;
    const framer: Server = createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      // A control frame from the framer's own origin shows the harness can see framed content.
      res.end(
        req.url === '/inner' ? '<button>Inner control</button>' : `<iframe id="victim" src="${signInUrl}"></iframe><iframe id="control" src="/inner"></iframe>`,
      );
    });
    await new Promise<void>((resolve) => framer.listen(0, 'localhost', resolve));
    const ctx = await browser.newContext();
    try {
      const p = await ctx.newPage();
      // The frame follows the authorization request to the sign-in page, which the server does send.
      const victimLoaded = p.waitForResponse((r) => r.url().startsWith(`${srv.url}${SIGN_IN_PATH}?`));
      await p.goto(`http://localhost:${(framer.address() as AddressInfo).port}/`);
      expect((await victimLoaded).status()).toBe(200);
      await p.frameLocator('#control').getByRole('button', { name: 'Inner control' }).waitFor();
      const victim = p.frameLocator('#victim');
      // Give the blocked frame its chance to render anything at all.
      await p.waitForLoadState('load');
      expect(await victim.getByRole('button', { name: 'Sign in' }).count()).toBe(0);
      expect(await victim.getByLabel('Password').count()).toBe(0);
    } finally {
      await ctx.close();
      framer.closeAllConnections();
      await new Promise<void>((resolve) => framer.close(() => resolve()));
    }
  });
});

describe('a disabled user and a revoked grant stop at once', () => {
  test('a disabled user: the tool call is 401, the refresh refused, the sign-in refused', async () => {
    const other = await createUserWithCli(srv, {
      orgId: tenant.orgId,
      workspaceId: tenant.workspaceId,
      email: uniqueEmail('disabled'),
      permissions: ['candidates.search'],
    });
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    expect(await setPasswordFromLink(p, other.setupUrl, PASSWORD)).toBeLessThan(400);
    const pending = await buildAuthorizationUrl(srv, as, client, loopback.redirectUri);
    const outcome = await authorizeInBrowser(p, pending.url.href, loopback, { email: other.email, password: PASSWORD });
    const tokens = await redeemCallback(as, client, pending, outcome.callback);
    expect((await callToolServer(srv, tokens.access_token)).status).toBe(200);

    const disabled = await adminCli(srv, 'user', 'disable', '--user-id', other.userId);
    expect(disabled.status).toBe(0);

    const call = await callToolServer(srv, tokens.access_token);
    expect(call.status).toBe(401);
    expect(call.challenge).toContain('error="invalid_token"');
    await expect(refresh(as, client, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // The session ended too: the same authorization now asks for a sign-in, and signing in fails.
    const again = await authorizeOverHttp(pending.url, await cookieHeader(ctx));
    expect(again.location).toContain(`${SIGN_IN_PATH}?`);
    await expect(authorizeInBrowser(p, pending.url.href, loopback, { email: other.email, password: PASSWORD })).rejects.toThrow(/sign-in form came back/);
    await ctx.close();
  });

  test('a grant revoked by the operator: the tool call is 401 and the refresh refused', async () => {
    const granted = await registerPublicClient(as, [loopback.redirectUri], 'Operator Revoked Client');
    const pending = await buildAuthorizationUrl(srv, as, granted, loopback.redirectUri);
    const outcome = await authorizeInBrowser(page, pending.url.href, loopback, { email: person.email, password: PASSWORD });
    expect(outcome.consented).toBe(true);
    const tokens = await redeemCallback(as, granted, pending, outcome.callback);
    expect((await callToolServer(srv, tokens.access_token)).status).toBe(200);
    const listed = await adminCli(srv, 'user', 'grants', '--user-id', person.userId);
    expect(JSON.stringify(listed.json)).toContain(granted.client_id);

    const revoked = await adminCli(srv, 'user', 'grants', 'revoke', '--user-id', person.userId, '--client-id', granted.client_id);
    expect(revoked.status).toBe(0);

    expect((await callToolServer(srv, tokens.access_token)).status).toBe(401);
    await expect(refresh(as, granted, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    // Another client's grant of the same person is untouched.
    const { pending: p2, callback } = await freshCode();
    expect((await callToolServer(srv, (await redeemCallback(as, client, p2, callback)).access_token)).status).toBe(200);
  });
});

describe('Client ID Metadata Documents at private addresses are refused before any connection', () => {
  test.each([
    ['the loopback address', () => `https://127.0.0.1:${metadataHost.port}/client.json`],
    ['a name that resolves to the loopback', () => `https://localhost:${metadataHost.port}/client.json`],
    ['the link-local metadata address', () => 'https://169.254.169.254/latest/client.json'],
    ['a private range', () => 'https://10.0.0.1/client.json'],
  ])('%s', async (_name, clientIdOf) => {
    const clientId = clientIdOf();
    metadataHost.respond(() => ({
      status: 200,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_id: clientId, client_name: 'Private Document', redirect_uris: [loopback.redirectUri], token_endpoint_auth_method: 'none' }),
    }));
    const before = metadataHost.requests.length;
    const pending = await buildAuthorizationUrl(srv, as, { client_id: clientId }, loopback.redirectUri);
    const res = await authorizeOverHttp(pending.url);
    expectErrorPage(res);
    // The page says no more than for any other unusable document (no probe of what listens where).
    expect(res.text).toContain('the client&#39;s metadata document could not be used');
    expect(res.text).not.toMatch(/address|allowed/i);
    expect(res.text).not.toContain('Private Document');
    expect(metadataHost.requests.length).toBe(before);
  });
});

describe('injection and fixation', () => {
  test('a client name with markup is shown as text on the consent page, never as markup', async () => {
    const marked = await registerPublicClient(as, [loopback.redirectUri], '<b id="injected">Bold</b><script>document.title="pwned"</script> Client');
    const pending = await buildAuthorizationUrl(srv, as, marked, loopback.redirectUri);
    await page.goto(pending.url.href);
    await page.getByRole('button', { name: 'Allow', exact: true }).waitFor();
    expect(await page.locator('#injected').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
    expect(await page.locator('body').innerText()).toContain('<b id="injected">Bold</b>');
  });

  test('signing in replaces the session value the browser had before (no session fixation)', async () => {
    const ctx = await browser.newContext();
    const p = await ctx.newPage();
    const pending = await buildAuthorizationUrl(srv, as, client, loopback.redirectUri);
    await p.goto(pending.url.href);
    await p.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    const before = (await ctx.cookies(srv.url)).filter((c) => c.name.startsWith('__Host-'));
    expect(before).toHaveLength(1);
    // An attacker who planted this value must not ride on the sign-in that follows.
    const planted = `${before[0].name}=${before[0].value}`;
    await authorizeInBrowser(p, pending.url.href, loopback, { email: person.email, password: PASSWORD });
    const after = (await ctx.cookies(srv.url)).filter((c) => c.name === before[0].name);
    expect(after).toHaveLength(1);
    expect(after[0].value).not.toBe(before[0].value);
    const withPlanted = await authorizeOverHttp((await buildAuthorizationUrl(srv, as, client, loopback.redirectUri)).url, planted);
    expect(withPlanted.location).toContain(`${SIGN_IN_PATH}?`);
    await ctx.close();
  });
});
