import { recordConsent } from '../../core/oauth/consentGrants';
import { listAuditEvents } from '../../core/audit/auditLog';
import { userGrants } from '../../core/oauth/personAccess';
import { createTenant } from '../support/fixtures';
import { rawRequest } from '../support/http';
import { runAdminWith, type AdminResult } from '../support/adminCli';
import { startTestApi, type TestApi } from '../support/testApi';
import { OAUTH_ENV } from './oauthTestClient';

// The operator's user commands, run by the CLI's own entry in this process with the test API's
// dependencies (adminCli.cases.ts keeps the tests of the CLI as a process).

let srv: TestApi;

beforeAll(async () => {
  srv = await startTestApi(OAUTH_ENV);
});
afterAll(async () => srv.close());

/** The API's config carries OAUTH_ENV's AUTH_URL, which setup links are built on. */
function admin(...args: string[]): Promise<AdminResult> {
  return runAdminWith(srv.deps, args);
}

test('user create, list, grants, grants revoke and disable', async () => {
  const tenant = await createTenant();
  const created = await admin(
    'user',
    'create',
    '--org',
    tenant.orgId,
    '--workspace',
    tenant.workspaceId,
    '--email',
    'Ada@Example.com',
    '--permissions',
    'candidates.search,jobs.v1:read',
  );
  expect(created.status).toBe(0);
  expect(created.json).toMatchObject({
    user_id: expect.stringMatching(/^usr_/),
    email: 'ada@example.com',
    setup_url: expect.stringMatching(/^http:\/\/auth\.test\.invalid\/api\/oauth\/setup\?token=ust_/),
  });
  const token = new URL(created.json.setup_url).searchParams.get('token')!;
  const stored = await srv.deps.stores.users.findUser(created.json.user_id);
  expect(JSON.stringify(stored)).not.toContain(token);

  // The setup link opens the set-password page.
  const page = await rawRequest(srv.url, { path: `/api/oauth/setup?token=${token}`, headers: { Connection: 'close' } });
  expect(page.status).toBe(200);
  expect(page.text).toContain('Set password');

  const badPermission = await admin(
    'user',
    'create',
    '--org',
    tenant.orgId,
    '--workspace',
    tenant.workspaceId,
    '--email',
    'bob@example.com',
    '--permissions',
    'everything',
  );
  expect(badPermission.status).toBe(1);
  expect(badPermission.stderr).toContain('unknown permissions: everything');

  const listed = await admin('user', 'list', '--org', tenant.orgId);
  expect(listed.status).toBe(0);
  expect(listed.json.users).toEqual([
    expect.objectContaining({
      user_id: created.json.user_id,
      email: 'ada@example.com',
      password_set: false,
      disabled_at: null,
      permissions: ['candidates.search', 'jobs.v1:read'],
    }),
  ]);
  expect(JSON.stringify(listed.json)).not.toMatch(/setupTokenHash|passwordHash/);

  await recordConsent(
    srv.deps.stores,
    {
      userId: created.json.user_id,
      clientId: 'pcl_one',
      clientName: 'One',
      scope: 'mcp:tools',
      orgId: tenant.orgId,
      allowance: { mode: 'daily', dailyCredits: 10 },
    },
    new Date(),
  );
  await recordConsent(
    srv.deps.stores,
    {
      userId: created.json.user_id,
      clientId: 'pcl_two',
      clientName: 'Two',
      scope: 'mcp:tools',
      orgId: tenant.orgId,
      allowance: { mode: 'read_only', dailyCredits: null },
    },
    new Date(),
  );
  const grants = await admin('user', 'grants', '--user-id', created.json.user_id);
  expect(grants.json.grants.map((g: { client_id: string }) => g.client_id).sort()).toEqual(['pcl_one', 'pcl_two']);
  const revokeOne = await admin('user', 'grants', 'revoke', '--user-id', created.json.user_id, '--client-id', 'pcl_one');
  expect(revokeOne.json).toEqual({ user_id: created.json.user_id, revoked_client_ids: ['pcl_one'] });
  expect((await userGrants(srv.deps.stores, created.json.user_id)).grants).toEqual([expect.objectContaining({ client_id: 'pcl_two', client_name: 'Two' })]);

  const disabled = await admin('user', 'disable', '--user-id', created.json.user_id);
  expect(disabled.status).toBe(0);
  expect(disabled.json.disabled_at).toEqual(expect.any(String));
  // A disabled person's setup link no longer works.
  // (A fresh connection: the CLI runs block this process longer than a kept-alive socket lives.)
  expect((await rawRequest(srv.url, { path: `/api/oauth/setup?token=${token}`, headers: { Connection: 'close' } })).status).toBe(400);
});

test('roles: user create --role, user role, and the last active admin is kept', async () => {
  const tenant = await createTenant();
  const base = ['--org', tenant.orgId, '--workspace', tenant.workspaceId, '--permissions', 'jobs.v1:read'];
  const member = await admin('user', 'create', ...base, '--email', `m.${tenant.orgId}@example.com`);
  expect(member.json).toMatchObject({ role: 'member' });
  const first = await admin('user', 'create', ...base, '--email', `a.${tenant.orgId}@example.com`, '--role', 'admin');
  expect(first.status).toBe(0);
  expect(first.json).toMatchObject({ role: 'admin' });
  expect(await admin('user', 'create', ...base, '--email', `x.${tenant.orgId}@example.com`, '--role', 'owner')).toMatchObject({
    status: 2,
    stderr: expect.stringContaining('--role must be admin or member'),
  });

  const demoteLast = await admin('user', 'role', '--user-id', first.json.user_id, '--role', 'member');
  expect(demoteLast.status).toBe(1);
  expect(demoteLast.stderr).toMatch(/^error: User usr_\S+ is the last active admin of organization org_\S+; make another person admin first\.\n$/);
  const disableLast = await admin('user', 'disable', '--user-id', first.json.user_id);
  expect(disableLast.status).toBe(1);
  expect(disableLast.stderr).toContain('is the last active admin');
  expect(await srv.deps.stores.users.findUser(first.json.user_id)).toMatchObject({ role: 'admin', disabledAt: null });

  const promoted = await admin('user', 'role', '--user-id', member.json.user_id, '--role', 'admin');
  expect(promoted.json).toEqual({ user_id: member.json.user_id, org_id: tenant.orgId, role_before: 'member', role: 'admin' });
  expect((await admin('user', 'role', '--user-id', first.json.user_id, '--role', 'member')).json).toMatchObject({ role_before: 'admin', role: 'member' });
  const listed = await admin('user', 'list', '--org', tenant.orgId);
  expect(Object.fromEntries(listed.json.users.map((u: { user_id: string; role: string }) => [u.user_id, u.role]))).toEqual({
    [member.json.user_id]: 'admin',
    [first.json.user_id]: 'member',
  });

  // Each change is in the organization's audit log as the operator's; the refusals left nothing.
  const entries = (await listAuditEvents(srv.deps.stores, srv.deps.purposeKeys, tenant.orgId, { actor: 'operator' })).data;
  expect(entries.map((e) => [e.action, e.target, e.before, e.after])).toEqual([
    ['user.updated', first.json.user_id, { role: 'admin' }, { role: 'member' }],
    ['user.updated', member.json.user_id, { role: 'member' }, { role: 'admin' }],
    [
      'user.invited',
      first.json.user_id,
      null,
      expect.objectContaining({ role: 'admin', email: `a.${tenant.orgId}@example.com`.toLowerCase(), permissions: ['jobs.v1:read'] }),
    ],
    ['user.invited', member.json.user_id, null, expect.objectContaining({ role: 'member' })],
  ]);
  expect(JSON.stringify(entries)).not.toContain('setup');
});
