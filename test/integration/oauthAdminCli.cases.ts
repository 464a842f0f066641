import { runAdminWith } from '../support/adminCli';
import { createTenant } from '../support/fixtures';
import { startTestApi, type TestApi } from '../support/testApi';
import { OAUTH_ENV, RESOURCE, tokenRequest } from './oauthTestClient';

let srv: TestApi;

beforeAll(async () => {
  srv = await startTestApi(OAUTH_ENV);
});
afterAll(async () => srv.close());

/** The operator CLI's own entry in this process, with the test API's dependencies. */
const admin = (...args: string[]) => runAdminWith(srv.deps, args);

const form = (id: string, secret: string) => ({
  grant_type: 'client_credentials',
  client_id: id,
  client_secret: secret,
  scope: 'mcp:tools',
  resource: RESOURCE,
});

test('m2m create, rotate, list and revoke through the operator CLI', async () => {
  const tenant = await createTenant();
  const created = await admin('m2m', 'create', '--org', tenant.orgId, '--rate-limit', '120', '--scopes', 'candidates.search,jobs.v1:read');
  expect(created.status).toBe(0);
  expect(created.json).toMatchObject({
    client_id: expect.stringMatching(/^cli_/),
    client_secret: expect.stringMatching(/^mcs_/),
    scopes: ['candidates.search', 'jobs.v1:read'],
    rate_limit_per_minute: 120,
  });
  const { client_id: id, client_secret: secret } = created.json;
  const stored = await srv.deps.stores.oauth.findOAuthClient(id);
  expect(JSON.stringify(stored)).not.toContain(secret);
  expect((await tokenRequest(srv, form(id, secret))).status).toBe(200);

  const rotated = await admin('m2m', 'rotate', '--client-id', id);
  expect(rotated.status).toBe(0);
  expect(rotated.json.client_secret).not.toBe(secret);
  // Default grace: 24 h (M2M_SECRET_ROTATION_GRACE_SECONDS).
  expect(new Date(rotated.json.previous_secret_expires_at).getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
  expect((await tokenRequest(srv, form(id, secret))).status).toBe(200);
  expect((await tokenRequest(srv, form(id, rotated.json.client_secret))).status).toBe(200);

  const listed = await admin('m2m', 'list', '--org', tenant.orgId);
  expect(listed.json.clients).toEqual([expect.objectContaining({ client_id: id, live_secrets: 2, revoked_at: null, rate_limit_per_minute: 120 })]);
  expect(JSON.stringify(listed.json)).not.toMatch(/mcs_|hash/);

  const revoked = await admin('m2m', 'revoke', '--client-id', id);
  expect(revoked.json).toEqual({ client_id: id, revoked_at: expect.any(String) });
  expect((await tokenRequest(srv, form(id, rotated.json.client_secret))).status).toBe(401);

  const bad = await admin('m2m', 'create', '--org', tenant.orgId);
  expect(bad.status).not.toBe(0);
  expect(bad.stderr).toContain('--rate-limit');
}, 120_000);

test("m2m create acts in the organization's workspace (or the one named), says which, and never adds one silently", async () => {
  const org = await admin('org', 'create', '--name', 'One workspace');
  const only = await admin('m2m', 'create', '--org', org.json.org_id, '--rate-limit', '60');
  expect(only.status).toBe(0);
  // Its jobs reach this workspace's webhook endpoint, not a workspace of its own.
  expect(only.json).toMatchObject({ workspace_id: org.json.workspace_id, workspace: `${org.json.workspace_id}: the organization's only workspace` });

  const second = await admin('workspace', 'create', '--org', org.json.org_id);
  const ambiguous = await admin('m2m', 'create', '--org', org.json.org_id, '--rate-limit', '60');
  expect({ status: ambiguous.status, stdout: ambiguous.stdout }).toEqual({ status: 2, stdout: '' });
  expect(ambiguous.stderr.trim().split('\n')).toHaveLength(1);
  expect(ambiguous.stderr).toContain(`has 2 workspaces (${org.json.workspace_id}, ${second.json.workspace_id}): name one with --workspace`);

  const named = await admin('m2m', 'create', '--org', org.json.org_id, '--workspace', second.json.workspace_id, '--rate-limit', '60');
  expect(named.json).toMatchObject({ workspace_id: second.json.workspace_id, workspace: `${second.json.workspace_id}: given with --workspace` });

  const other = await admin('org', 'create', '--name', 'Other');
  const foreign = await admin('m2m', 'create', '--org', org.json.org_id, '--workspace', other.json.workspace_id, '--rate-limit', '60');
  expect(foreign.status).toBe(1);
  expect(foreign.stderr).toContain(`workspace ${other.json.workspace_id} is not a workspace of organization ${org.json.org_id}`);
  expect(await srv.deps.stores.tenancy.workspacesOfOrg(org.json.org_id, 'by_id')).toHaveLength(2);
});
