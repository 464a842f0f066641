import { createHash, randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { authenticator } from 'otplib';
import { setSecondFactorRequired } from '../../core/tenancy/securityPolicy';
import { offerTotpSecret, turnOnAuthenticatorApp } from '../../core/users/authenticatorApp';
import { createUser, findActiveUser, reissueSetup } from '../../core/users/users';
import { disableUser } from '../../core/oauth/personAccess';
import { FormBrowser, formField as field } from '../support/formBrowser';
import { createTenant, type TestTenant } from '../support/fixtures';
import { recordConsent } from '../../core/oauth/consentGrants';
import { startTestApi, type TestApi } from '../support/testApi';
import { AUTH_URL, OAUTH_ENV, RESOURCE, tokenRequest } from './oauthTestClient';
import { fileStores } from '../support/testStore';

// HTTP-level tests of browser sign-in without a browser: the pages are driven as forms, the
// client side is a handful of raw requests. The browser and SDK tests live elsewhere.

let srv: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  srv = await startTestApi({ ...OAUTH_ENV, PASSWORD_SCRYPT_LOG2_N: '10' });
  tenant = await createTenant({ credits: 100 });
});
afterAll(async () => srv.close());

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function register(metadata: Record<string, unknown>) {
  const res = await fetch(`${srv.url}/api/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(metadata) });
  return { status: res.status, json: (await res.json()) as any };
}

async function newPerson(permissions = ['candidates.search', 'jobs.v1:read']) {
  const email = `p${randomBytes(6).toString('hex')}@example.com`;
  const created = await createUser(fileStores(), srv.config, { orgId: tenant.orgId, workspaceId: tenant.workspaceId, email, permissions }, new Date());
  const password = 'correct horse battery staple';
  const browser = new FormBrowser(srv.url);
  const setupPath = new URL(created.setup_url).pathname + new URL(created.setup_url).search;
  const page = await browser.request(setupPath);
  expect(page.status).toBe(200);
  expect(page.text).toContain('<label for="new_password">New password</label>');
  const done = await browser.request('/api/oauth/setup', {
    form: { csrf_token: field(page.text, 'csrf_token'), token: field(page.text, 'token'), new_password: password, confirm_password: password },
  });
  expect(done.status).toBe(200);
  return { userId: created.user_id, email, password, browser };
}

function authorizePath(params: Record<string, string>): string {
  return `/api/oauth/authorize?${new URLSearchParams(params)}`;
}

/** Signs in (if asked) and consents; returns the final redirect to the client. */
async function authorizeThrough(browser: FormBrowser, person: { email: string; password: string }, params: Record<string, string>): Promise<URL> {
  let res = await browser.request(authorizePath(params));
  expect(res.status).toBe(303);
  for (let step = 0; step < 5; step++) {
    const loc = res.location!;
    if (!loc.startsWith('/')) return new URL(loc);
    if (loc.startsWith('/api/oauth/signin')) {
      const page = await browser.request(loc);
      res = await browser.request('/api/oauth/signin', {
        form: { csrf_token: field(page.text, 'csrf_token'), request: field(page.text, 'request'), email: person.email, password: person.password },
      });
    } else if (loc.startsWith('/api/oauth/consent')) {
      const page = await browser.request(loc);
      res = await browser.request('/api/oauth/consent', {
        form: { csrf_token: field(page.text, 'csrf_token'), request: field(page.text, 'request'), decision: 'allow' },
      });
    } else {
      res = await browser.request(loc);
    }
    expect(res.status).toBe(303);
  }
  throw new Error('too many steps');
}

async function connectTools(accessToken: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${srv.url}/tools`), { requestInit: { headers: { Authorization: `Bearer ${accessToken}` } } });
  const client = new Client({ name: 'flow-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function toolsStatus(accessToken: string) {
  const res = await fetch(`${srv.url}/tools`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', Authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  return { status: res.status, challenge: res.headers.get('www-authenticate') };
}

describe('metadata (RFC 8414), API reference and housekeeping', () => {
  test('advertises the authorization and registration endpoints, S256, iss and metadata documents', async () => {
    const meta = (await (await fetch(`${srv.url}/.well-known/oauth-authorization-server`)).json()) as any;
    expect(meta).toMatchObject({
      issuer: AUTH_URL,
      authorization_endpoint: `${AUTH_URL}/api/oauth/authorize`,
      registration_endpoint: `${AUTH_URL}/api/oauth/register`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    expect(meta.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token', 'client_credentials']));
    expect(meta.token_endpoint_auth_methods_supported).toContain('none');
    const reference = (await (await fetch(`${srv.url}/openapi.json`)).json()) as any;
    expect(reference.paths['/api/oauth/authorize'].get.servers).toEqual([{ url: AUTH_URL }]);
    expect(Object.keys(reference.paths)).toEqual(
      expect.arrayContaining(['/api/oauth/token', '/api/oauth/register', '/api/oauth/signin', '/api/oauth/consent', '/api/oauth/connections']),
    );
  });

  test('store maintenance purges expired sign-in records; live ones stay', async () => {
    const { purgeExpiredRecords } = await import('../../core/maintenance/purgeExpiredRecords');
    const { findAttemptSlots, insertAttemptSlot } = srv.deps.stores.users;
    await insertAttemptSlot('purge-test:old', new Date(Date.now() - 1000));
    await insertAttemptSlot('purge-test:live', new Date(Date.now() + 60_000));

    expect((await purgeExpiredRecords(srv.deps.stores, new Date())).signInRecords).toBeGreaterThanOrEqual(1);
    expect((await findAttemptSlots(['purge-test:old', 'purge-test:live'])).map((s) => s._id)).toEqual(['purge-test:live']);
  });
});

describe('the whole flow with a dynamically registered client on a loopback redirect', () => {
  test('sign in, consent, code, tokens, tools; a code used twice revokes what it issued; consent is remembered', async () => {
    const person = await newPerson();
    const reg = await register({
      client_name: 'Loopback <Test> App',
      redirect_uris: ['http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(reg.status).toBe(201);
    const clientId = reg.json.client_id as string;
    const { verifier, challenge } = pkce();
    // Any port on a loopback redirect (RFC 8252 7.3); no resource means the tool server.
    const redirectUri = 'http://127.0.0.1:54321/callback';
    const start = await person.browser.request(
      authorizePath({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'st-1',
      }),
    );
    expect(start.status).toBe(303);
    expect(start.location).toMatch(/^\/api\/oauth\/signin\?request=/);

    const signInPage = await person.browser.request(start.location!);
    expect(signInPage.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(signInPage.headers.get('x-frame-options')).toBe('DENY');
    const wrong = await person.browser.request('/api/oauth/signin', {
      form: { csrf_token: field(signInPage.text, 'csrf_token'), request: field(signInPage.text, 'request'), email: person.email, password: 'not the password' },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain('The email or password is not correct.');
    const signedIn = await person.browser.request('/api/oauth/signin', {
      form: { csrf_token: field(wrong.text, 'csrf_token'), request: field(wrong.text, 'request'), email: person.email, password: person.password },
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.getSetCookie().join()).toMatch(/HttpOnly; SameSite=Lax/);
    const consent = await person.browser.request(signedIn.location!);
    expect(consent.status).toBe(200);
    // The client's own name is escaped; the redirect host and the permissions are shown.
    expect(consent.text).toContain('Loopback &lt;Test&gt; App');
    expect(consent.text).toContain('127.0.0.1:54321');
    expect(consent.text).toContain('candidates.search');
    const allowed = await person.browser.request('/api/oauth/consent', {
      form: { csrf_token: field(consent.text, 'csrf_token'), request: field(consent.text, 'request'), decision: 'allow' },
    });
    expect(allowed.status).toBe(303);
    const back = new URL(allowed.location!);
    expect(back.origin + back.pathname).toBe(redirectUri);
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.get('iss')).toBe(AUTH_URL);
    const code = back.searchParams.get('code')!;
    expect(await srv.deps.stores.oauth.findAuthorizationCode(code)).toBeNull(); // stored hashed only

    const form = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier };
    const badVerifier = await tokenRequest(srv, { ...form, code_verifier: pkce().verifier });
    expect(badVerifier.json.error).toBe('invalid_grant');
    const tokens = await tokenRequest(srv, form);
    expect(tokens.status).toBe(200);
    expect(tokens.json).toMatchObject({ token_type: 'Bearer', scope: 'mcp:tools', expires_in: 900 });
    const claims = decodeJwt(tokens.json.access_token);
    expect(claims).toMatchObject({ sub: person.userId, client_id: clientId, aud: RESOURCE, iss: AUTH_URL, scope: 'mcp:tools' });

    const tools = await connectTools(tokens.json.access_token);
    const who = await tools.callTool({ name: 'whoami', arguments: {} });
    expect(who.isError).toBeFalsy();
    expect(who.structuredContent).toMatchObject({
      org_root: tenant.orgId,
      workspace_id: tenant.workspaceId,
      key_id: person.userId,
      scopes: ['candidates.search', 'jobs.v1:read'],
    });
    // The person lacks profiles.v1:unlock: a tool error, not a transport failure.
    const unlock = await tools.callTool({ name: 'unlock_profile', arguments: { person_id: 'per_xxxxxxxxxxxxxxxxxxxxxx' } });
    expect(unlock.isError).toBe(true);
    expect(unlock.structuredContent).toMatchObject({ code: 'insufficient_scope' });
    await tools.close();

    // The code again: refused, and the tokens it issued stop working.
    const reuse = await tokenRequest(srv, form);
    expect(reuse.json.error).toBe('invalid_grant');
    const afterReuse = await toolsStatus(tokens.json.access_token);
    expect(afterReuse.status).toBe(401);
    expect(afterReuse.challenge).toContain('scope="mcp:tools"');
    expect(afterReuse.challenge).toContain('resource_metadata="http://mcp.test.invalid/.well-known/oauth-protected-resource/tools"');
    expect((await tokenRequest(srv, { grant_type: 'refresh_token', refresh_token: tokens.json.refresh_token, client_id: clientId })).json.error).toBe(
      'invalid_grant',
    );

    // Consent is remembered: the signed-in browser goes straight back with a code.
    const again = pkce();
    const second = await person.browser.request(
      authorizePath({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:40000/callback',
        code_challenge: again.challenge,
        code_challenge_method: 'S256',
        state: 'st-2',
        resource: `${RESOURCE}/`,
      }),
    );
    expect(second.status).toBe(303);
    const direct = new URL(second.location!);
    expect(direct.port).toBe('40000');
    expect(direct.searchParams.get('state')).toBe('st-2');
    const t2 = await tokenRequest(srv, {
      grant_type: 'authorization_code',
      code: direct.searchParams.get('code')!,
      redirect_uri: 'http://127.0.0.1:40000/callback',
      client_id: clientId,
      code_verifier: again.verifier,
    });
    expect(t2.status).toBe(200);
    expect((await toolsStatus(t2.json.access_token)).status).toBe(200);
  });
});

describe('refresh tokens of people', () => {
  test('rotation; a retry within the window gets the same pair; a later reuse revokes the chain; disabling stops everything', async () => {
    const person = await newPerson();
    const reg = await register({ client_name: 'Refresher', redirect_uris: ['https://app.example.com/cb'] });
    const { verifier, challenge } = pkce();
    const back = await authorizeThrough(person.browser, person, {
      response_type: 'code',
      client_id: reg.json.client_id,
      redirect_uri: 'https://app.example.com/cb',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(back.searchParams.get('iss')).toBe(AUTH_URL);
    const first = await tokenRequest(srv, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: 'https://app.example.com/cb',
      client_id: reg.json.client_id,
      code_verifier: verifier,
    });
    expect(first.status).toBe(200);
    const refresh = (token: string) => tokenRequest(srv, { grant_type: 'refresh_token', refresh_token: token, client_id: reg.json.client_id });
    const second = await refresh(first.json.refresh_token);
    expect(second.status).toBe(200);
    expect(second.json.refresh_token).not.toBe(first.json.refresh_token);
    const retried = await refresh(first.json.refresh_token);
    expect(retried.status).toBe(200);
    expect(retried.json).toEqual(second.json);
    // The stored pair is sealed, never plaintext.
    const rotation = await srv.deps.stores.oauth.findRotationKeepingPair();
    expect(JSON.stringify(rotation)).not.toContain(second.json.refresh_token);

    // Beyond the window, a reuse revokes the chain.
    await srv.deps.stores.oauth.endRefreshRetryWindows(new Date(Date.now() - 1000));
    expect((await refresh(first.json.refresh_token)).json.error).toBe('invalid_grant');
    expect((await refresh(second.json.refresh_token)).json.error).toBe('invalid_grant');
    expect((await toolsStatus(second.json.access_token)).status).toBe(401);

    // A new chain, then the operator disables the person: tokens and the session stop at once.
    const p2 = pkce();
    const back2 = await authorizeThrough(person.browser, person, {
      response_type: 'code',
      client_id: reg.json.client_id,
      redirect_uri: 'https://app.example.com/cb',
      code_challenge: p2.challenge,
      code_challenge_method: 'S256',
    });
    const live = await tokenRequest(srv, {
      grant_type: 'authorization_code',
      code: back2.searchParams.get('code')!,
      redirect_uri: 'https://app.example.com/cb',
      client_id: reg.json.client_id,
      code_verifier: p2.verifier,
    });
    expect((await toolsStatus(live.json.access_token)).status).toBe(200);
    await disableUser(srv.deps.stores, person.userId, new Date());
    expect((await toolsStatus(live.json.access_token)).status).toBe(401);
    expect((await refresh(live.json.refresh_token)).json.error).toBe('invalid_grant');
    const connections = await person.browser.request('/api/oauth/connections');
    expect(connections.status).toBe(303);
    expect(connections.location).toBe('/api/oauth/signin');
  });

  test('a password set through a new setup link (recovery) signs every browser out and disconnects every application, and says so', async () => {
    const person = await newPerson();
    const connected = [];
    for (const name of ['Recovered A', 'Recovered B']) {
      const reg = await register({ client_name: name, redirect_uris: ['https://recover.example.com/cb'] });
      const { verifier, challenge } = pkce();
      const back = await authorizeThrough(person.browser, person, {
        response_type: 'code',
        client_id: reg.json.client_id,
        redirect_uri: 'https://recover.example.com/cb',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      });
      const tokens = await tokenRequest(srv, {
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        redirect_uri: 'https://recover.example.com/cb',
        client_id: reg.json.client_id,
        code_verifier: verifier,
      });
      expect(tokens.status).toBe(200);
      expect((await toolsStatus(tokens.json.access_token)).status).toBe(200);
      connected.push({ clientId: reg.json.client_id as string, tokens: tokens.json });
    }

    // The person forgot the password: the operator issues a new link, opened in another browser.
    const link = new URL((await reissueSetup(srv.deps.stores, srv.config, person.userId, new Date())).setup_url);
    const other = new FormBrowser(srv.url);
    const form = await other.request(link.pathname + link.search);
    const done = await other.request('/api/oauth/setup', {
      form: {
        csrf_token: field(form.text, 'csrf_token'),
        token: field(form.text, 'token'),
        new_password: 'another long passphrase',
        confirm_password: 'another long passphrase',
      },
    });
    expect(done.status).toBe(200);
    expect(done.text).toContain('every browser signed in to your account was signed out');
    expect(done.text).toContain('every application connected to it');

    for (const app of connected) {
      expect((await toolsStatus(app.tokens.access_token)).status).toBe(401);
      const refreshed = await tokenRequest(srv, { grant_type: 'refresh_token', refresh_token: app.tokens.refresh_token, client_id: app.clientId });
      expect(refreshed.json.error).toBe('invalid_grant');
    }
    const connections = await person.browser.request('/api/oauth/connections');
    expect(connections.status).toBe(303);
    expect(connections.location).toBe('/api/oauth/signin');
  });

  test('the first password of a new person says nothing about disconnected applications', async () => {
    const email = `p${randomBytes(6).toString('hex')}@example.com`;
    const created = await createUser(
      fileStores(),
      srv.config,
      {
        orgId: tenant.orgId,
        workspaceId: tenant.workspaceId,
        email,
        permissions: ['candidates.search'],
      },
      new Date(),
    );
    const browser = new FormBrowser(srv.url);
    const link = new URL(created.setup_url);
    const form = await browser.request(link.pathname + link.search);
    const done = await browser.request('/api/oauth/setup', {
      form: {
        csrf_token: field(form.text, 'csrf_token'),
        token: field(form.text, 'token'),
        new_password: 'a first long passphrase',
        confirm_password: 'a first long passphrase',
      },
    });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Your password is set');
    expect(done.text).not.toContain('signed out');
  });

  test('revoking a connected application on the page stops its tokens', async () => {
    const person = await newPerson();
    const reg = await register({ client_name: 'Revocable', redirect_uris: ['https://rev.example.com/cb'] });
    const { verifier, challenge } = pkce();
    const back = await authorizeThrough(person.browser, person, {
      response_type: 'code',
      client_id: reg.json.client_id,
      redirect_uri: 'https://rev.example.com/cb',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const tokens = await tokenRequest(srv, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: 'https://rev.example.com/cb',
      client_id: reg.json.client_id,
      code_verifier: verifier,
    });
    const page = await person.browser.request('/api/oauth/connections');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Revocable');
    const noCsrf = await person.browser.request('/api/oauth/connections/revoke', { form: { client_id: reg.json.client_id } });
    expect(noCsrf.status).toBe(403);
    expect((await toolsStatus(tokens.json.access_token)).status).toBe(200);
    const revoked = await person.browser.request('/api/oauth/connections/revoke', {
      form: { csrf_token: field(page.text, 'csrf_token'), client_id: reg.json.client_id },
    });
    expect(revoked.status).toBe(303);
    expect((await toolsStatus(tokens.json.access_token)).status).toBe(401);
    expect((await person.browser.request('/api/oauth/connections')).text).not.toContain('Revocable');
  });
});

describe('refusals at the authorization endpoint', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = (await register({ client_name: 'Strict', redirect_uris: ['https://strict.example.com/cb'] })).json.client_id;
  });
  const base = () => ({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'https://strict.example.com/cb',
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    state: 'xyz',
  });

  test.each([
    ['an unknown client', { client_id: 'pcl_doesnotexist000000000000' }],
    ['a redirect URI the client did not register', { redirect_uri: 'https://evil.example.com/cb' }],
    ['a look-alike redirect URI', { redirect_uri: 'https://strict.example.com/cb/../evil' }],
  ])('%s: an error page, never a redirect', async (_name, override) => {
    const res = await new FormBrowser(srv.url).request(authorizePath({ ...base(), ...override }));
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
  });

  test.each([
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no PKCE', { code_challenge: '' }, 'invalid_request'],
    ['a token response type', { response_type: 'token' }, 'unsupported_response_type'],
    ['another resource', { resource: 'https://other.example.com/' }, 'invalid_target'],
    ['another scope', { scope: 'admin' }, 'invalid_scope'],
  ])('%s: redirected back with the error, state and iss', async (_name, override, error) => {
    const res = await new FormBrowser(srv.url).request(authorizePath({ ...base(), ...override }));
    expect(res.status).toBe(303);
    const url = new URL(res.location!);
    expect(url.origin + url.pathname).toBe('https://strict.example.com/cb');
    expect(url.searchParams.get('error')).toBe(error);
    expect(url.searchParams.get('state')).toBe('xyz');
    expect(url.searchParams.get('iss')).toBe(AUTH_URL);
  });

  test('an expired code is refused; a code is bound to its redirect URI and client', async () => {
    const person = await newPerson();
    const { verifier, challenge } = pkce();
    const back = await authorizeThrough(person.browser, person, { ...base(), code_challenge: challenge });
    const code = back.searchParams.get('code')!;
    const form = { grant_type: 'authorization_code', code, redirect_uri: 'https://strict.example.com/cb', client_id: clientId, code_verifier: verifier };
    expect((await tokenRequest(srv, { ...form, redirect_uri: 'https://strict.example.com/cb2' })).json.error).toBe('invalid_grant');
    const other = (await register({ redirect_uris: ['https://strict.example.com/cb'] })).json.client_id;
    expect((await tokenRequest(srv, { ...form, client_id: other })).json.error).toBe('invalid_grant');
    await srv.deps.stores.oauth.expireAuthorizationCodes(new Date(Date.now() - 1));
    expect((await tokenRequest(srv, form)).json.error).toBe('invalid_grant');
  });

  test('deny sends access_denied back', async () => {
    const person = await newPerson();
    const start = await person.browser.request(authorizePath(base()));
    const page = await person.browser.request(start.location!);
    const signedIn = await person.browser.request('/api/oauth/signin', {
      form: { csrf_token: field(page.text, 'csrf_token'), request: field(page.text, 'request'), email: person.email, password: person.password },
    });
    const consent = await person.browser.request(signedIn.location!);
    const denied = await person.browser.request('/api/oauth/consent', {
      form: { csrf_token: field(consent.text, 'csrf_token'), request: field(consent.text, 'request'), decision: 'deny' },
    });
    const url = new URL(denied.location!);
    expect(url.searchParams.get('error')).toBe('access_denied');
    expect(url.searchParams.get('iss')).toBe(AUTH_URL);
  });
});

describe('sign-in limits', () => {
  test('after repeated failures the account is locked, with the same words for an unknown email', async () => {
    const person = await newPerson();
    const browser = new FormBrowser(srv.url);
    const attempt = async (email: string, password: string) => {
      const page = await browser.request('/api/oauth/signin');
      return browser.request('/api/oauth/signin', { form: { csrf_token: field(page.text, 'csrf_token'), email, password } });
    };
    for (let i = 0; i < 5; i++) expect((await attempt(person.email, 'wrong password!')).status).toBe(401);
    const locked = await attempt(person.email, person.password);
    expect(locked.status).toBe(429);
    expect(locked.text).toContain('Too many sign-in attempts');
    const unknown = await attempt('nobody@example.com', 'whatever password');
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('The email or password is not correct.');
    expect(await srv.deps.stores.users.findUserWithEmail('nobody@example.com')).toBeNull();
  });

  test('with an authenticator app, the authorization request waits for the code after the password, then goes on to consent and a code', async () => {
    const person = await newPerson();
    const offer = await offerTotpSecret(srv.deps.stores, srv.deps.purposeKeys, (await findActiveUser(srv.deps.stores, person.userId))!);
    const on = await turnOnAuthenticatorApp(srv.deps.stores, srv.deps.purposeKeys, person.userId, authenticator.generate(offer.secret), new Date());
    expect(on.ok).toBe(true);
    const reg = await register({ client_name: 'Two-factor App', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' });
    const { challenge } = pkce();
    const start = await person.browser.request(
      authorizePath({
        response_type: 'code',
        client_id: reg.json.client_id,
        redirect_uri: 'http://127.0.0.1:5000/callback',
        code_challenge: challenge,
        code_challenge_method: 'S256',
        state: 'st-2fa',
      }),
    );
    const signInPage = await person.browser.request(start.location!);
    const handle = field(signInPage.text, 'request');
    const afterPassword = await person.browser.request('/api/oauth/signin', {
      form: { csrf_token: field(signInPage.text, 'csrf_token'), request: handle, email: person.email, password: person.password },
    });
    expect(afterPassword.status).toBe(303);
    expect(afterPassword.location).toBe(`/api/oauth/signin/two-factor?request=${handle}`);
    // No session yet: the consent page sends the browser back to sign in.
    const early = await person.browser.request(`/api/oauth/consent?request=${handle}`);
    expect(early.location).toBe(`/api/oauth/signin?request=${handle}`);
    const codePage = await person.browser.request(afterPassword.location!);
    expect(codePage.text).toContain('<h1>Two-factor authentication</h1>');
    const verified = await person.browser.request('/api/oauth/signin/two-factor', {
      form: { csrf_token: field(codePage.text, 'csrf_token'), method: 'code', request: handle, code: authenticator.generate(offer.secret) },
    });
    // The code the app was turned on with is of this step: used once, refused now.
    expect(verified.status).toBe(401);
    const recovery = await person.browser.request('/api/oauth/signin/two-factor', {
      form: { csrf_token: field(codePage.text, 'csrf_token'), method: 'recovery_code', request: handle, recovery_code: on.ok ? on.recoveryCodes[0] : '' },
    });
    expect(recovery.status).toBe(303);
    expect(recovery.location).toBe(`/api/oauth/consent?request=${handle}`);
    const consent = await person.browser.request(recovery.location!);
    const allowed = await person.browser.request('/api/oauth/consent', {
      form: { csrf_token: field(consent.text, 'csrf_token'), request: handle, decision: 'allow' },
    });
    expect(new URL(allowed.location!).searchParams.get('code')).toBeTruthy();
  });

  test('a person whose organization requires a second factor they lack gets no code, even with consent remembered: they are sent to enrol', async () => {
    const own = await createTenant();
    const email = `p${randomBytes(6).toString('hex')}@example.com`;
    const created = await createUser(
      fileStores(),
      srv.config,
      { orgId: own.orgId, workspaceId: own.workspaceId, email, permissions: ['candidates.search'] },
      new Date(),
    );
    const browser = new FormBrowser(srv.url);
    const setupPath = new URL(created.setup_url).pathname + new URL(created.setup_url).search;
    const setupPage = await browser.request(setupPath);
    await browser.request('/api/oauth/setup', {
      form: {
        csrf_token: field(setupPage.text, 'csrf_token'),
        token: field(setupPage.text, 'token'),
        new_password: 'correct horse battery staple',
        confirm_password: 'correct horse battery staple',
      },
    });
    const reg = await register({ client_name: 'Held App', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' });
    await recordConsent(
      srv.deps.stores,
      {
        userId: created.user_id,
        orgId: own.orgId,
        clientId: reg.json.client_id,
        clientName: 'Held App',
        scope: 'mcp:tools',
        allowance: { mode: 'read_only', dailyCredits: null },
      },
      new Date(),
    );
    await setSecondFactorRequired(fileStores(), own.orgId, true);
    const start = await browser.request(
      authorizePath({
        response_type: 'code',
        client_id: reg.json.client_id,
        redirect_uri: 'http://127.0.0.1:5000/callback',
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
        state: 's',
      }),
    );
    const signInPage = await browser.request(start.location!);
    const signedIn = await browser.request('/api/oauth/signin', {
      form: { csrf_token: field(signInPage.text, 'csrf_token'), request: field(signInPage.text, 'request'), email, password: 'correct horse battery staple' },
    });
    expect(signedIn.location).toBe('/console/security');
    const again = await browser.request(start.location!);
    expect(again.location).toBe('/console/security');
    expect(await srv.deps.stores.oauth.countAuthorizationCodesOfClient(reg.json.client_id)).toBe(0);
  });

  test("a connected application's tokens stop working when the person's organization requires a second factor they lack (RFC 9470 challenge)", async () => {
    const person = await newPerson();
    const reg = await register({ client_name: 'Policy App', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none' });
    const { verifier, challenge } = pkce();
    const redirectUri = 'http://127.0.0.1:5001/callback';
    const back = await authorizeThrough(person.browser, person, {
      response_type: 'code',
      client_id: reg.json.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'p',
    });
    const tokens = await tokenRequest(srv, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: redirectUri,
      client_id: reg.json.client_id,
      code_verifier: verifier,
    });
    expect((await toolsStatus(tokens.json.access_token)).status).toBe(200);
    await setSecondFactorRequired(fileStores(), tenant.orgId, true);
    try {
      const held = await toolsStatus(tokens.json.access_token);
      expect(held.status).toBe(401);
      expect(held.challenge).toContain('error="insufficient_user_authentication"');
    } finally {
      await setSecondFactorRequired(fileStores(), tenant.orgId, false);
    }
    expect((await toolsStatus(tokens.json.access_token)).status).toBe(200);
  });
});
