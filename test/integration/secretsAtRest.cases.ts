import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { authenticator } from 'otplib';
import type { Config } from '../../core/config';
import { createClient } from '../../core/oauth/clients';
import { createUser } from '../../core/users/users';
import { startApiProcess, type ApiProcess } from '../support/apiProcess';
import { createTenant, type TestTenant } from '../support/fixtures';
import { FormBrowser, formField } from '../support/formBrowser';
import { api } from '../support/http';
import { testConfig } from '../support/testConfig';
import { fileStores, openTestStore, type TestStore } from '../support/testStore';

/**
 * Secrets never at rest in plaintext: every kind of secret the service hands
 * out is created and exercised through the real API process, then the store (every document of
 * every collection, and on the local store its data files) and the process's logs are searched
 * for each one. Webhook signing secrets must be recoverable, so they are sealed, not hashed;
 * everything else is kept as a hash or not kept at all.
 */

const AUTH_URL = 'http://auth.secrets.invalid';
const MCP_URL = 'http://mcp.secrets.invalid';
let testStore: TestStore;
let proc: ApiProcess;
let tenant: TestTenant;
let dbName: string;
let config: Config;

beforeAll(async () => {
  config = testConfig({ AUTH_URL, MCP_URL });
  dbName = new URL(config.mongodbUri).pathname.slice(1);
  testStore = await openTestStore(config);
  tenant = await createTenant({ credits: 10 });
  proc = await startApiProcess(config, { AUTH_URL, MCP_URL, WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8', API_WARM_START: 'false' });
});
afterAll(async () => {
  await proc?.stop();
  await testStore.close();
});

async function form(path: string, fields: Record<string, string>): Promise<Record<string, unknown>> {
  const res = await fetch(`${proc.url}${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

/** Every document of every collection of this test's database, as text. */
async function storeText(): Promise<string> {
  const db = testStore.handle.connection.db!;
  const parts: string[] = [];
  for (const { name } of await db.listCollections().toArray()) {
    const docs = await db.collection(name).find({}).toArray();
    parts.push(JSON.stringify(docs));
  }
  return parts.join('\n');
}

/** The local store's files (FerretDB over SQLite) of this database, when the tests started it. */
function storeFiles(): Buffer[] {
  const dir = process.env.TEST_SERVICES_DIR ? join(process.env.TEST_SERVICES_DIR, 'ferretdb') : null;
  if (!dir || process.env.MONGODB_URI) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith(dbName))
    .map((f) => join(dir, f))
    .filter((p) => statSync(p).isFile())
    .map((p) => readFileSync(p));
}

describe('secrets at rest', () => {
  test('API keys, webhook secrets, M2M client secrets, access and refresh tokens, setup tokens, passwords and session cookies appear in no document, data file or log line', async () => {
    const secrets: Record<string, string> = { api_key: tenant.key };

    expect((await api(proc.url, 'GET', '/v1/whoami', { key: tenant.key })).status).toBe(200);

    const registered = await api(proc.url, 'POST', '/v1/webhook-endpoints', { key: tenant.key, body: { url: 'https://127.0.0.1:9443/hook' } });
    expect(registered.status).toBe(201);
    secrets.webhook_secret = registered.json.secret;
    const rotated = await api(proc.url, 'POST', `/v1/webhook-endpoints/${registered.json.endpoint.endpoint_id}/rotate-secret`, { key: tenant.key });
    expect(rotated.status).toBe(200);
    secrets.webhook_secret_successor = rotated.json.secret;

    const m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 100 }, new Date());
    secrets.client_secret = m2m.client_secret;
    const issued = await form('/api/oauth/token', {
      grant_type: 'client_credentials',
      client_id: m2m.client_id,
      client_secret: m2m.client_secret,
      scope: 'mcp:tools',
      resource: `${MCP_URL}/tools`,
    });
    secrets.access_token = String(issued.access_token);
    secrets.refresh_token = String(issued.refresh_token);
    const refreshed = await form('/api/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: secrets.refresh_token,
      client_id: m2m.client_id,
      client_secret: m2m.client_secret,
    });
    secrets.refreshed_access_token = String(refreshed.access_token);
    secrets.refreshed_refresh_token = String(refreshed.refresh_token);
    const toolCall = await fetch(`${proc.url}/tools`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${secrets.refreshed_access_token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'secrets-test', version: '1' } },
      }),
    });
    expect(toolCall.status).toBe(200);

    // A person: the one-time setup token, the password chosen with it, the browser session.
    const person = await createUser(
      fileStores(),
      config,
      {
        orgId: tenant.orgId,
        workspaceId: tenant.workspaceId,
        email: `secrets.${Date.now()}@example.com`,
        permissions: ['candidates.search'],
      },
      new Date(),
    );
    const setupUrl = new URL(person.setup_url);
    secrets.setup_token = setupUrl.searchParams.get('token')!;
    secrets.password = `a long passphrase ${randomUUID()}`;
    const browser = new FormBrowser(proc.url);
    const setupPage = await browser.request(setupUrl.pathname + setupUrl.search);
    expect(setupPage.status).toBe(200);
    const setUp = await browser.request('/api/oauth/setup', {
      form: {
        csrf_token: formField(setupPage.text, 'csrf_token'),
        token: secrets.setup_token,
        new_password: secrets.password,
        confirm_password: secrets.password,
      },
    });
    expect(setUp.status).toBe(200);
    const signInPage = await browser.request('/api/oauth/signin');
    const signedIn = await browser.request('/api/oauth/signin', {
      form: { csrf_token: formField(signInPage.text, 'csrf_token'), email: person.email, password: secrets.password },
    });
    expect(signedIn.status).toBe(303);
    // Two cookies: the session, and the known-browser value sign-in recognises a browser by (stored only as its hash).
    expect([...browser.cookies.keys()].sort()).toEqual(
      expect.arrayContaining([expect.stringMatching(/talent_session$/), expect.stringMatching(/talent_browser$/)]),
    );
    expect(browser.cookies.size).toBe(2);
    secrets.session_cookie = [...browser.cookies].find(([name]) => name.endsWith('talent_session'))![1];
    secrets.browser_cookie = [...browser.cookies].find(([name]) => name.endsWith('talent_browser'))![1];

    // The person's authenticator app: its secret (sealed at rest) and the ten recovery codes (hashed), each shown once.
    const totpPage = await browser.request('/console/security/authenticator-app');
    const totpSecret = /<code id="totp-secret"[^>]*>([A-Z2-7]+)<\/code>/.exec(totpPage.text)![1];
    const turnedOn = await browser.request('/console/security/authenticator-app', {
      form: { csrf_token: formField(totpPage.text, 'csrf_token'), code: authenticator.generate(totpSecret) },
    });
    expect(turnedOn.status).toBe(201);
    const recoveryCodes = [...turnedOn.text.matchAll(/<li><code>([0-9a-z]{5}-[0-9a-z]{5})<\/code><\/li>/g)].map((m) => m[1]);
    expect(recoveryCodes).toHaveLength(10);

    for (const [kind, value] of Object.entries(secrets)) expect({ kind, long: value.length >= 20 }).toEqual({ kind, long: true });
    const needles = Object.entries(secrets).flatMap(([kind, value]) => {
      const forms = [[kind, value]];
      // The signing key of a webhook secret is its base64 payload; neither form may be at rest.
      if (value.startsWith('whsec_')) forms.push([`${kind} payload`, value.slice('whsec_'.length)]);
      return forms;
    });
    needles.push(['totp secret', totpSecret], ...recoveryCodes.map((code) => ['recovery code', code]));

    const text = await storeText();
    const files = storeFiles();
    if (!process.env.MONGODB_URI) expect(files.length).toBeGreaterThan(0);
    const logs = proc.output();
    expect(logs.length).toBeGreaterThan(0);
    for (const [kind, value] of needles) {
      expect({ kind, inStore: text.includes(value) }).toEqual({ kind, inStore: false });
      expect({ kind, inLogs: logs.includes(value) }).toEqual({ kind, inLogs: false });
      for (const file of files) expect({ kind, inDataFile: file.includes(value) }).toEqual({ kind, inDataFile: false });
    }
    // The scan is not vacuous: the store does hold the hashed key's non-secret display prefix.
    expect(text).toContain(tenant.keyId);
  });
});
