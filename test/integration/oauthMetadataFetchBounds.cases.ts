import { startHttpsReceiver, type HttpsReceiver } from '../support/httpsReceiver';
import { startTestApi, type TestApi } from '../support/testApi';
import { OAUTH_ENV } from './oauthTestClient';

/**
 * Client ID Metadata Document fetches are bounded: per client address, in flight across the
 * process, and a failing URL is not fetched again for a while. One proxy hop is trusted, so
 * each test speaks from its own addresses through X-Forwarded-For.
 */

const FETCHES_PER_ADDRESS = 3;
const IN_FLIGHT = 2;
const AUTHORIZE_PER_ADDRESS = 5;
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const REDIRECT = 'https://doc.example.com/cb';

let srv: TestApi;
let receiver: HttpsReceiver;
let closedPort: number;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  const gone = await startHttpsReceiver();
  closedPort = gone.port;
  await gone.close();
  srv = await startTestApi({
    ...OAUTH_ENV,
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOK_EXTRA_CA_FILE: receiver.caFile,
    TRUSTED_PROXY_HOPS: '1',
    ADDRESS_METADATA_DOCUMENT_FETCHES_PER_MINUTE: String(FETCHES_PER_ADDRESS),
    METADATA_DOCUMENT_FETCHES_IN_FLIGHT: String(IN_FLIGHT),
    ADDRESS_AUTHORIZE_REQUESTS_PER_MINUTE: String(AUTHORIZE_PER_ADDRESS),
  });
});
afterAll(async () => {
  await srv.close();
  await receiver.close();
});
beforeEach(() => srv.publicClients.forgetDocuments());

let addresses = 0;
/** A client address no other test used. */
const newAddress = () => `198.51.100.${++addresses}`;

const docUrl = (name: string) => `${receiver.url}/${name}/client.json`;

function goodDocument(url: string) {
  return JSON.stringify({ client_id: url, client_name: 'Bounded Client', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
}

/** Answers every path with a valid document of its own URL, except those `special` answers. */
function serveDocuments(special: (path: string) => ReturnType<Parameters<HttpsReceiver['respond']>[0]> | undefined = () => undefined) {
  receiver.respond((req) => {
    return special(req.path) ?? { status: 200, headers: { 'Content-Type': 'application/json' }, body: goodDocument(`${receiver.url}${req.path}`) };
  });
}

async function authorize(clientId: string, address: string) {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: CHALLENGE,
    code_challenge_method: 'S256',
  });
  const res = await fetch(`${srv.url}/api/oauth/authorize?${q}`, { redirect: 'manual', headers: { 'X-Forwarded-For': address } });
  return { status: res.status, location: res.headers.get('location'), retryAfter: res.headers.get('retry-after'), text: await res.text() };
}

const fetchesOf = (name: string) => receiver.requests.filter((r) => r.path === `/${name}/client.json`).length;
const testLogs = () => (globalThis as { __testLogs?: string[] }).__testLogs;

describe('what a refused metadata document tells the caller', () => {
  test('an error status, a timeout, an unreachable port, a forbidden address and a bad document all read the same; the log has the reason', async () => {
    // Only this test's lines: the file's log buffer also holds what ran before it in its area file.
    const logsBefore = testLogs()?.length ?? 0;
    serveDocuments((path) => {
      if (path.startsWith('/missing/')) return { status: 404, body: 'no' };
      if (path.startsWith('/broken/')) return { status: 200, headers: { 'Content-Type': 'application/json' }, body: '{not json' };
      if (path.startsWith('/slow/')) return 'hang';
      return undefined;
    });
    const pages = [];
    for (const clientId of [
      docUrl('missing'),
      docUrl('broken'),
      docUrl('slow'),
      `https://127.0.0.1:${closedPort}/client.json`,
      'https://10.9.8.7/client.json',
    ]) {
      const res = await authorize(clientId, newAddress());
      expect({ clientId, status: res.status, location: res.location }).toEqual({ clientId, status: 400, location: null });
      pages.push(res.text);
    }
    expect(pages[0]).toContain('the client&#39;s metadata document could not be used');
    for (const page of pages) expect(page).toBe(pages[0]);
    const logs = testLogs()?.slice(logsBefore);
    if (logs) {
      const reasons = logs.filter((l) => l.includes('a client metadata document could not be used')).map((l) => JSON.parse(l).reason as string);
      expect(reasons).toEqual(expect.arrayContaining([expect.stringContaining('404'), expect.stringContaining('ms'), expect.stringContaining('not allowed')]));
    }
  });
});

describe('failures are remembered', () => {
  test('a URL whose fetch failed is not fetched again within the failure-cache time, from any address', async () => {
    serveDocuments((path) => (path.startsWith('/failing/') ? { status: 404, body: 'no' } : undefined));
    const first = await authorize(docUrl('failing'), newAddress());
    expect(first.status).toBe(400);
    expect(fetchesOf('failing')).toBe(1);
    for (let i = 0; i < 3; i++) {
      const again = await authorize(docUrl('failing'), newAddress());
      expect(again.status).toBe(400);
      expect(again.text).toBe(first.text);
    }
    expect(fetchesOf('failing')).toBe(1);
    // Once forgotten (the cache time passed), the URL is fetched again: now it serves a document.
    serveDocuments();
    srv.publicClients.forgetDocuments();
    expect((await authorize(docUrl('failing'), newAddress())).status).toBe(303);
    expect(fetchesOf('failing')).toBe(2);
  });
});

describe('fetches per client address', () => {
  test('new documents beyond the allowance are refused with 429 and Retry-After, without a fetch; other addresses and cached documents are unaffected', async () => {
    serveDocuments();
    const address = newAddress();
    for (let i = 0; i < FETCHES_PER_ADDRESS; i++) expect((await authorize(docUrl(`new${i}`), address)).status).toBe(303);
    const over = await authorize(docUrl('one-too-many'), address);
    expect(over.status).toBe(429);
    expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(over.retryAfter)).toBeLessThanOrEqual(60);
    expect(over.location).toBeNull();
    expect(fetchesOf('one-too-many')).toBe(0);
    // A document already cached costs no fetch, so it is still served to that address.
    expect((await authorize(docUrl('new0'), address)).status).toBe(303);
    // Another address has its own allowance.
    expect((await authorize(docUrl('one-too-many'), newAddress())).status).toBe(303);
    expect(fetchesOf('one-too-many')).toBe(1);
  });
});

describe('fetches in flight across the process', () => {
  test('beyond the bound a sign-in is refused at once (503, Retry-After), not queued; places come back when fetches end', async () => {
    serveDocuments((path) => (path.startsWith('/stuck') ? 'hang' : undefined));
    const before = receiver.requests.length;
    const stuck = Array.from({ length: IN_FLIGHT }, (_, i) => authorize(docUrl(`stuck${i}`), newAddress()));
    await receiver.waitForRequests(before + IN_FLIGHT);
    const started = Date.now();
    const refused = await authorize(docUrl('while-busy'), newAddress());
    expect(refused.status).toBe(503);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(fetchesOf('while-busy')).toBe(0);
    // The stuck documents' connections drop: their fetches end, and their places are free again.
    await receiver.down();
    for (const res of await Promise.all(stuck)) expect(res.status).toBe(400);
    await receiver.up();
    expect((await authorize(docUrl('while-busy'), newAddress())).status).toBe(303);
  });
});

describe('pending authorizations per client address', () => {
  test('authorize requests that would store one are limited per address: 429 with Retry-After and nothing stored', async () => {
    serveDocuments();
    const clientId = docUrl('pending');
    const address = newAddress();
    const stored = () => srv.deps.stores.oauth.countAuthorizationRequestsOfClient(clientId);
    for (let i = 0; i < AUTHORIZE_PER_ADDRESS; i++) expect((await authorize(clientId, address)).status).toBe(303);
    expect(await stored()).toBe(AUTHORIZE_PER_ADDRESS);
    const over = await authorize(clientId, address);
    expect(over.status).toBe(429);
    expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(over.location).toBeNull();
    expect(await stored()).toBe(AUTHORIZE_PER_ADDRESS);
    expect((await authorize(clientId, newAddress())).status).toBe(303);
    expect(await stored()).toBe(AUTHORIZE_PER_ADDRESS + 1);
  });
});

describe("the token endpoint, which may fetch the document of a code's client", () => {
  async function redeem(clientId: string, address: string) {
    const res = await fetch(`${srv.url}/api/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': address },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'mac_forged',
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: 'v'.repeat(43),
      }),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), json: (await res.json()) as { error: string; error_description: string } };
  }

  test('the same words whatever failed, and the same per-address allowance', async () => {
    serveDocuments((path) => (path.startsWith('/token-missing/') ? { status: 404, body: 'no' } : undefined));
    const missing = await redeem(docUrl('token-missing'), newAddress());
    expect(missing.status).toBe(401);
    expect(missing.json.error).toBe('invalid_client');
    expect(missing.json.error_description).toContain("the client's metadata document could not be used");
    expect(missing.json.error_description).not.toContain('404');
    const address = newAddress();
    for (let i = 0; i < FETCHES_PER_ADDRESS; i++) await redeem(docUrl(`token-new${i}`), address);
    const over = await redeem(docUrl('token-one-too-many'), address);
    expect(over.status).toBe(429);
    expect(over.json.error).toBe('rate_limited');
    expect(Number(over.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(fetchesOf('token-one-too-many')).toBe(0);
  });
});
