import { listAuditEvents } from '../../core/audit/auditLog';
import { consoleSession, type ConsoleSession } from '../support/consoleWebhooks';
import { addKey, createTenant, type TestTenant } from '../support/fixtures';
import { api, type HttpResponse } from '../support/http';
import { expectProblemResponse } from '../support/problems';
import { adminCli, startSignInApi } from '../support/signInApi';
import type { TestApi } from '../support/testApi';
import { TestClock } from '../support/testClock';

/**
 * Nobody gets more than they were given (issue 40): the console's key and team writes stay within
 * the admin's own permissions (core/keys/handingOn.ts), an operator's limit holds every successor
 * of a key and every key created into its application, and a key past its expiry is refused, on
 * the API's injected clock. The admin here holds only `candidates.search`; the operator's key of
 * the organization holds every permission.
 */
const clock = new TestClock();
let srv: TestApi;
let tenant: TestTenant;
let admin: ConsoleSession;

beforeAll(async () => {
  srv = await startSignInApi({}, { now: clock.now });
  tenant = await createTenant();
  admin = await consoleSession(srv, tenant, 'admin', ['candidates.search', 'limits.v1:read']);
});
afterAll(async () => {
  await srv?.close();
});
// These tests move the app's clock, which sessions and sudo mode are counted on: each starts in sudo mode.
beforeEach(async () => {
  await admin.confirmPassword();
});

/** `GET /v1/whoami` in a second of its own on the API's clock, so the requests of a test never share the per-second window. */
function whoami(key: string): Promise<HttpResponse> {
  clock.nextSecond();
  return api(srv.url, 'GET', '/v1/whoami', { key });
}

const secretOf = (page: string) => /<code id="new-secret"[^>]*>([^<]+)<\/code>/.exec(page)?.[1] ?? '';

async function operator(...args: string[]): Promise<void> {
  const r = await adminCli(srv, ...args);
  if (r.status !== 0) throw new Error(`${args.join(' ')} failed: ${r.stderr}`);
}

/** Rotates a key in the console; the new key's plaintext, or the page refusing it. */
async function rotate(keyId: string, oldKeyEnds = '1h') {
  const page = await admin.post(`/console/keys/${keyId}/rotate`, { old_key_ends: oldKeyEnds });
  return { ...page, key: secretOf(page.text) };
}

async function createInConsole(form: Record<string, string>) {
  const page = await admin.post('/console/keys/new', {
    name: 'Console key',
    workspace: tenant.workspaceId,
    scopes: 'candidates.search',
    expires: 'never',
    ...form,
  });
  return { ...page, key: secretOf(page.text) };
}

const keysOfFamily = async (familyId: string) => (await srv.deps.stores.keys.familyKeysOfOrg(tenant.orgId, [familyId])).length;

describe('one rule for handing on permissions', () => {
  test("rotating a key that carries permissions the admin lacks is refused: 403 'Not allowed', no key made, the old key unchanged", async () => {
    const form = await admin.get(`/console/keys/${tenant.keyId}/rotate`);
    expect(form.status).toBe(403);
    expect(form.text).toContain('<h1>Not allowed</h1>');
    expect(form.text).toContain('audit.v1:read');

    const before = await keysOfFamily(tenant.familyId);
    const refused = await rotate(tenant.keyId);
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('<h1>Not allowed</h1>');
    expect(refused.text).toContain('successor would keep permissions you do not have yourself');
    expect(refused.key).toBe('');
    expect(await keysOfFamily(tenant.familyId)).toBe(before);
    expect(await srv.deps.stores.keys.findKey(tenant.keyId)).toMatchObject({ expiresAt: null, revokedAt: null });
    expect((await whoami(tenant.key)).status).toBe(200);
    expect((await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'key.rotated' })).data).toEqual([]);
  });

  test("a key within the admin's permissions rotates, and its successor has exactly its scopes", async () => {
    const own = await addKey(tenant, ['candidates.search']);
    const rotated = await rotate(own.key_id);
    expect(rotated.status).toBe(201);
    const res = await whoami(rotated.key);
    expect(res.status).toBe(200);
    expect(res.json.scopes).toEqual(['candidates.search']);
  });

  test('an invitation with a permission the admin lacks is refused and makes nobody', async () => {
    const email = `grant-${Date.now()}@example.com`;
    const res = await admin.post('/console/team/invite', { email, role: 'member', permissions: 'usage.v1:read' });
    expect(res.status).toBe(403);
    expect(res.text).toContain('<h1>Not allowed</h1>');
    expect(await srv.deps.stores.users.findUserWithEmail(email)).toBeNull();
  });

  test('a person holding a permission the admin lacks can be neither demoted, nor changed, nor disabled; their page offers neither', async () => {
    const stronger = await consoleSession(srv, tenant, 'admin', ['candidates.search', 'audit.v1:read']);
    const page = await admin.get(`/console/team/${stronger.userId}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('has permissions you do not have yourself');
    expect(page.text).not.toContain('>Save</button>');
    expect(page.text).not.toContain('>Disable person</button>');

    const writes: Array<[string, Record<string, string>]> = [
      [`/console/team/${stronger.userId}`, { role: 'member', permissions: 'candidates.search' }],
      [`/console/team/${stronger.userId}`, { role: 'admin', permissions: 'candidates.search' }],
      [`/console/team/${stronger.userId}/disable`, {}],
    ];
    for (const [path, form] of writes) {
      const res = await admin.post(path, form);
      expect([path, form.role, res.status]).toEqual([path, form.role, 403]);
      expect(res.text).toContain('they hold permissions you do not have yourself: audit.v1:read');
    }
    const after = await srv.deps.stores.users.findUser(stronger.userId);
    expect(after).toMatchObject({ role: 'admin', disabledAt: null });
    expect([...after!.permissions].sort()).toEqual(['audit.v1:read', 'candidates.search']);
    expect((await stronger.get('/console/overview')).status).toBe(200);
    expect((await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'user.updated' })).data).toEqual([]);
    expect((await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { action: 'user.disabled' })).data).toEqual([]);
  });

  test("a person within the admin's permissions is still changed and disabled", async () => {
    const member = await consoleSession(srv, tenant, 'member', ['candidates.search']);
    const saved = await admin.post(`/console/team/${member.userId}`, { role: 'member', permissions: 'candidates.search' });
    expect(saved.status).toBe(303);
    const disabled = await admin.post(`/console/team/${member.userId}/disable`, {});
    expect(disabled.status).toBe(303);
    expect((await srv.deps.stores.users.findUser(member.userId))?.disabledAt).not.toBeNull();
  });
});

describe("an operator's limit follows the key", () => {
  test('a block the operator set on a key holds every successor of it, however often it is rotated', async () => {
    const key = await addKey(tenant, ['candidates.search']);
    await operator('limit', 'block', '--org', tenant.orgId, '--operation', 'whoami', '--key-id', key.key_id);
    expectProblemResponse(await whoami(key.key), 429, 'rate_limited');

    const first = await rotate(key.key_id);
    expect(first.status).toBe(201);
    expectProblemResponse(await whoami(first.key), 429, 'rate_limited');
    const firstId = (await srv.deps.stores.keys.familyKeysOfOrgNewestFirst(tenant.orgId)).find((k) => k.familyId === key.family_id)!._id;
    const second = await rotate(firstId, 'now');
    expect(second.status).toBe(201);
    const refused = await whoami(second.key);
    expectProblemResponse(refused, 429, 'rate_limited');
    expect(refused.json.detail).toContain('blocked');
  });

  test('a per-minute cap the operator set on a key counts the key and its successor together', async () => {
    const key = await addKey(tenant, ['candidates.search', 'limits.v1:read']);
    await operator('limit', 'set', '--org', tenant.orgId, '--operation', 'whoami', '--key-id', key.key_id, '--requests-per-minute', '1');
    expect((await whoami(key.key)).status).toBe(200);
    const rotated = await rotate(key.key_id);
    expect(rotated.status).toBe(201);
    expectProblemResponse(await whoami(rotated.key), 429, 'rate_limited');
    // The successor's entry reports the cap it is held to, read as its own and by its id.
    const successor = (await srv.deps.stores.keys.familyKeysOfOrg(tenant.orgId, [key.family_id])).find((k) => k._id !== key.key_id)!._id;
    const held = { operation: 'whoami', scope: { type: 'key', id: successor }, requests_per_minute: 1, source: 'override' };
    clock.nextSecond();
    const own = await api(srv.url, 'GET', '/v1/operational-limits?operation=whoami&scope=key', { key: rotated.key });
    expect(own.status).toBe(200);
    expect(own.json.data).toContainEqual(expect.objectContaining(held));
    expect(own.json.data.filter((e: { scope: { id: string } }) => e.scope.id === key.key_id)).toHaveLength(1);
    clock.nextSecond();
    const byId = await api(srv.url, 'GET', `/v1/operational-limits?operation=whoami&key_id=${successor}`, { key: rotated.key });
    expect(byId.json.data).toEqual([expect.objectContaining(held)]);
  });

  test("a block on a key family holds the family's rotated keys", async () => {
    const key = await addKey(tenant, ['candidates.search']);
    await operator('limit', 'block', '--org', tenant.orgId, '--operation', 'whoami', '--family', key.family_id);
    const rotated = await rotate(key.key_id);
    expect(rotated.status).toBe(201);
    expectProblemResponse(await whoami(rotated.key), 429, 'rate_limited');
  });

  test('"Create an API key" offers the organization\'s own applications, the first one chosen; a person\'s is not among them', async () => {
    const org = await createTenant();
    const orgAdmin = await consoleSession(srv, org, 'admin', ['candidates.search']);
    await orgAdmin.confirmPassword();
    const apps = await adminCli(srv, 'application', 'create', '--org', org.orgId, '--name', 'Reporting jobs');
    const page = await orgAdmin.get('/console/keys/new');
    expect(page.status).toBe(200);
    expect(page.text).toContain('>Application</label>');
    expect(page.text).toMatch(new RegExp(`<option value="${org.applicationId}"[^>]*selected`));
    expect(page.text).toContain(`Reporting jobs (${apps.json.application_id})`);
    const person = await srv.deps.stores.users.findUser(orgAdmin.userId);
    expect(page.text).not.toContain(person!.applicationId);
  });

  test('a key created into an application the operator blocked is blocked, whichever application the admin picks', async () => {
    const reporting = (await adminCli(srv, 'application', 'create', '--org', tenant.orgId, '--name', 'Reporting')).json.application_id as string;
    await operator('limit', 'block', '--org', tenant.orgId, '--operation', 'whoami', '--application', reporting);
    const created = await createInConsole({ application: reporting });
    expect(created.status).toBe(201);
    expectProblemResponse(await whoami(created.key), 429, 'rate_limited');
    expect((await srv.deps.stores.keys.keysOfOrg(tenant.orgId)).find((k) => k.applicationId === reporting)?.applicationId).toBe(reporting);

    // The default application is the organization's first; a block there holds a key created into it.
    const org = await createTenant();
    const orgAdmin = await consoleSession(srv, org, 'admin', ['candidates.search']);
    await orgAdmin.confirmPassword();
    await operator('limit', 'block', '--org', org.orgId, '--operation', 'whoami', '--application', org.applicationId);
    const page = await orgAdmin.post('/console/keys/new', {
      name: 'Default app key',
      workspace: org.workspaceId,
      application: org.applicationId,
      scopes: 'candidates.search',
      expires: 'never',
    });
    expect(page.status).toBe(201);
    expectProblemResponse(await whoami(secretOf(page.text)), 429, 'rate_limited');
  });

  test("an application of another organization, or a person's, is refused and nothing is created", async () => {
    const other = await createTenant();
    const person = await srv.deps.stores.users.findUser(admin.userId);
    for (const application of [other.applicationId, person!.applicationId, '']) {
      const before = (await srv.deps.stores.keys.keysOfOrg(tenant.orgId)).length;
      const res = await createInConsole({ application });
      expect([application, res.status]).toEqual([application, 422]);
      expect(res.text).toContain('<h1>Not saved</h1>');
      expect((await srv.deps.stores.keys.keysOfOrg(tenant.orgId)).length).toBe(before);
    }
  });
});

describe('expiry, on the API clock', () => {
  const DAY_MS = 24 * 3600_000;
  // A test that moves the clock past the session's lifetime leaves the next one a fresh sign-in.
  afterEach(async () => {
    admin = await consoleSession(srv, tenant, 'admin', ['candidates.search', 'limits.v1:read']);
  });

  test('a key created with "Expires: In 30 days" answers until then and is 401 invalid_api_key from its expiry on', async () => {
    const created = await createInConsole({ application: tenant.applicationId, expires: '30d' });
    expect(created.status).toBe(201);
    clock.advance(30 * DAY_MS - 5_000);
    expect((await whoami(created.key)).status).toBe(200);
    clock.advance(5_000);
    expectProblemResponse(await whoami(created.key), 401, 'invalid_api_key');
  });

  test('"Old key stops working: In 1 hour": the old key answers for the hour, then is 401; the new one keeps working', async () => {
    const key = await addKey(tenant, ['candidates.search']);
    const rotated = await rotate(key.key_id, '1h');
    expect(rotated.status).toBe(201);
    clock.advance(3600_000 - 5_000);
    expect((await whoami(key.key)).status).toBe(200);
    clock.advance(5_000);
    expectProblemResponse(await whoami(key.key), 401, 'invalid_api_key');
    expect((await whoami(rotated.key)).status).toBe(200);
  });

  test('"Old key stops working: Now": the old key is 401 on its very next request', async () => {
    const key = await addKey(tenant, ['candidates.search']);
    const rotated = await rotate(key.key_id, 'now');
    expect(rotated.status).toBe(201);
    expectProblemResponse(await whoami(key.key), 401, 'invalid_api_key');
    expect((await whoami(rotated.key)).status).toBe(200);
  });
});
