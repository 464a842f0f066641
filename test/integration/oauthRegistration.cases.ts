import { revokeClient } from '../../core/oauth/clients';
import { startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver';
import { startTestApi, type TestApi } from '../support/testApi';
import { OAUTH_ENV } from './oauthTestClient';

// Client registration: RFC 7591 dynamic registration and Client ID Metadata Documents served by
// a real HTTPS server on loopback (allowed here through the webhook destination relaxations).

let srv: TestApi;
let receiver: HttpsReceiver;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  srv = await startTestApi({ ...OAUTH_ENV, WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', WEBHOOK_EXTRA_CA_FILE: receiver.caFile });
});
afterAll(async () => {
  await srv.close();
  await receiver.close();
});

async function register(body: unknown, contentType = 'application/json') {
  const res = await fetch(`${srv.url}/api/oauth/register`, {
    method: 'POST',
    headers: { 'Content-Type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as any };
}

const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

async function authorize(clientId: string, redirectUri: string) {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
    state: 's',
  });
  const res = await fetch(`${srv.url}/api/oauth/authorize?${q}`, { redirect: 'manual' });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

describe('dynamic registration (RFC 7591)', () => {
  test("Claude's hosted callback, public client, defaults filled in", async () => {
    const res = await register({
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.json).toMatchObject({
      client_id: expect.stringMatching(/^pcl_/),
      client_name: 'Claude',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
    });
    expect(res.json.client_secret).toBeUndefined();
    expect((await authorize(res.json.client_id, 'https://claude.ai/api/mcp/auth_callback')).status).toBe(303);
  });

  test('a loopback client without an auth method (Claude Code, VS Code) is public; native apps may use private-use schemes', async () => {
    const loopback = await register({ client_name: 'VS Code', redirect_uris: ['http://127.0.0.1:33418/', 'http://localhost:33418/'] });
    expect(loopback.status).toBe(201);
    expect(loopback.json.token_endpoint_auth_method).toBe('none');
    const cursor = await register({
      client_name: 'Cursor',
      application_type: 'native',
      redirect_uris: ['cursor://anysphere.cursor-retrieval/oauth/user-talent/callback'],
    });
    expect(cursor.status).toBe(201);
  });

  test.each([
    ['a confidential client', { redirect_uris: ['https://a.example.com/cb'], token_endpoint_auth_method: 'client_secret_basic' }, 'invalid_client_metadata'],
    ['client_credentials', { redirect_uris: ['https://a.example.com/cb'], grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
    ['an implicit client', { redirect_uris: ['https://a.example.com/cb'], response_types: ['token'] }, 'invalid_client_metadata'],
    ['no redirect URIs', { client_name: 'x' }, 'invalid_redirect_uri'],
    ['plain http off loopback', { redirect_uris: ['http://a.example.com/cb'] }, 'invalid_redirect_uri'],
    ['a private-use scheme for a web app', { redirect_uris: ['cursor://x/cb'] }, 'invalid_redirect_uri'],
    ['a javascript: URI', { application_type: 'native', redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://a.example.com/cb#x'] }, 'invalid_redirect_uri'],
  ])('refused: %s', async (_name, body, error) => {
    const res = await register(body);
    expect(res.status).toBe(400);
    expect(res.json.error).toBe(error);
    expect(typeof res.json.error_description).toBe('string');
  });

  test('not JSON: invalid_client_metadata', async () => {
    expect((await register('redirect_uris=x', 'application/x-www-form-urlencoded')).json.error).toBe('invalid_client_metadata');
    expect((await register('{not json')).json.error).toBe('invalid_client_metadata');
  });

  test('a revoked registered client can no longer start a sign-in', async () => {
    const res = await register({ client_name: 'Gone', redirect_uris: ['https://gone.example.com/cb'] });
    await revokeClient(srv.deps.stores, res.json.client_id, new Date());
    const page = await authorize(res.json.client_id, 'https://gone.example.com/cb');
    expect(page.status).toBe(400);
    expect(page.location).toBeNull();
  });
});

describe('Client ID Metadata Documents', () => {
  const docUrl = () => `${receiver.url}/oauth/client.json`;
  const good = () => ({
    client_id: docUrl(),
    client_name: 'Doc Client',
    redirect_uris: ['https://doc.example.com/cb', 'http://127.0.0.1/cb'],
    grant_types: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: 'none',
  });

  beforeEach(() => srv.publicClients.forgetDocuments());

  test('fetched once, cached by max-age, and the client can start a sign-in (loopback any port too)', async () => {
    receiver.respond(() => ({ status: 200, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=600' }, body: JSON.stringify(good()) }));
    const before = receiver.requests.length;
    const first = await authorize(docUrl(), 'https://doc.example.com/cb');
    expect(first.status).toBe(303);
    expect(first.location).toMatch(/^\/api\/oauth\/signin\?request=/);
    expect((await authorize(docUrl(), 'http://127.0.0.1:49152/cb')).status).toBe(303);
    expect(receiver.requests.length - before).toBe(1);
    expect(receiver.requests.at(-1)).toMatchObject({ method: 'GET', path: '/oauth/client.json' });
    // A redirect URI the document does not list: an error page.
    const evil = await authorize(docUrl(), 'https://evil.example.com/cb');
    expect(evil.status).toBe(400);
    expect(evil.location).toBeNull();
  });

  test.each([
    [
      'a document naming another client',
      () => ({
        status: 200,
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...good(), client_id: 'https://other.example.com/client' }),
      }),
    ],
    ['a redirect (never followed)', () => ({ status: 302, headers: { Location: 'https://127.0.0.1/elsewhere' }, body: '' })],
    [
      'a document over 5 KB',
      () => ({ status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...good(), padding: 'x'.repeat(6000) }) }),
    ],
    ['an error status', () => ({ status: 500, body: 'no' })],
  ])('refused with an error page: %s', async (_name, reply) => {
    receiver.respond(reply as never);
    const res = await authorize(docUrl(), 'https://doc.example.com/cb');
    expect(res.status).toBe(400);
    expect(res.location).toBeNull();
    expect(res.text).toContain('could not be identified');
    // The same words whatever went wrong: the page is no probe of what answers where.
    expect(res.text).toContain('the client&#39;s metadata document could not be used');
  });

  test('a document at a private address is never fetched, and the page says no more than for any other failure', async () => {
    const res = await authorize('https://10.1.2.3/client.json', 'https://doc.example.com/cb');
    expect(res.status).toBe(400);
    expect(res.text).toContain('the client&#39;s metadata document could not be used');
    expect(res.text).not.toMatch(/address|allowed|10\.1\.2\.3/);
  });

  test('an operator-revoked document URL is refused from then on', async () => {
    receiver.respond(() => ({ status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(good()) }));
    expect((await authorize(docUrl(), 'https://doc.example.com/cb')).status).toBe(303);
    await revokeClient(srv.deps.stores, docUrl(), new Date());
    expect((await srv.deps.stores.oauth.findPublicClient(docUrl()))?.revokedAt).toBeInstanceOf(Date);
    expect((await authorize(docUrl(), 'https://doc.example.com/cb')).status).toBe(400);
    await srv.deps.stores.oauth.deletePublicClient(docUrl());
  });
});

describe('registration limit per client address', () => {
  test('refused with 429 and Retry-After once the hourly allowance is spent; refusals do not count', async () => {
    let last = await register({ redirect_uris: ['https://many.example.com/cb'] });
    for (let i = 0; i < 40 && last.status === 201; i++) last = await register({ redirect_uris: ['https://many.example.com/cb'] });
    expect(last.status).toBe(429);
    expect(last.json.error).toBe('rate_limited');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await srv.deps.stores.oauth.countPublicClients('dynamic')).toBe(30);
  });
});
