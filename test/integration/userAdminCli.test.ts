import { recordConsent } from '../../core/oauth/consentGrants';
import { User } from '../../core/users/models';
import { userGrants } from '../../core/users/users';
import { createTenant } from '../support/fixtures';
import { rawRequest } from '../support/http';
import { runAdmin, type AdminResult } from '../support/adminCli';
import { startTestApi, type TestApi } from '../support/testApi';
import { OAUTH_ENV } from './oauthTestClient';

// The operator's user commands, run as the real CLI process against the test store.
// Each CLI run is a fresh tsx process: slow on a loaded machine.
jest.setTimeout(600_000);

let srv: TestApi;

beforeAll(async () => {
  srv = await startTestApi(OAUTH_ENV);
});
afterAll(async () => srv.close());

function admin(...args: string[]): AdminResult {
  return runAdmin(srv.config, args, { AUTH_URL: OAUTH_ENV.AUTH_URL }, { timeoutMs: 120_000 });
}

test('user create, list, grants, grants revoke and disable', async () => {
  const tenant = await createTenant();
  const created = admin(
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
  const stored = await User.findById(created.json.user_id).lean();
  expect(JSON.stringify(stored)).not.toContain(token);

  // The setup link opens the set-password page.
  const page = await rawRequest(srv.url, { path: `/api/oauth/setup?token=${token}`, headers: { Connection: 'close' } });
  expect(page.status).toBe(200);
  expect(page.text).toContain('Set password');

  const badPermission = admin(
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

  const listed = admin('user', 'list', '--org', tenant.orgId);
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

  await recordConsent({ userId: created.json.user_id, clientId: 'pcl_one', clientName: 'One', scope: 'mcp:tools' });
  await recordConsent({ userId: created.json.user_id, clientId: 'pcl_two', clientName: 'Two', scope: 'mcp:tools' });
  const grants = admin('user', 'grants', '--user-id', created.json.user_id);
  expect(grants.json.grants.map((g: { client_id: string }) => g.client_id).sort()).toEqual(['pcl_one', 'pcl_two']);
  const revokeOne = admin('user', 'grants', 'revoke', '--user-id', created.json.user_id, '--client-id', 'pcl_one');
  expect(revokeOne.json).toEqual({ user_id: created.json.user_id, revoked_client_ids: ['pcl_one'] });
  expect((await userGrants(created.json.user_id)).grants).toEqual([expect.objectContaining({ client_id: 'pcl_two', client_name: 'Two' })]);

  const disabled = admin('user', 'disable', '--user-id', created.json.user_id);
  expect(disabled.status).toBe(0);
  expect(disabled.json.disabled_at).toEqual(expect.any(String));
  // A disabled person's setup link no longer works.
  // (A fresh connection: the CLI runs block this process longer than a kept-alive socket lives.)
  expect((await rawRequest(srv.url, { path: `/api/oauth/setup?token=${token}`, headers: { Connection: 'close' } })).status).toBe(400);
});
