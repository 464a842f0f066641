import { runAdmin, type AdminResult } from '../support/adminCli';
import { api } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';

let srv: TestApi;

beforeAll(async () => {
  srv = await startTestApi();
});
afterAll(async () => srv.close());

/** Runs the operator CLI exactly as an operator would, against the test API's store. */
const admin = (...args: string[]): AdminResult => runAdmin(srv.config, args);

describe('operator CLI', () => {
  test('provisions an organization and a key that works, then revokes it', async () => {
    const org = admin('org', 'create', '--name', 'Acme', '--credits', '50');
    expect(org.status).toBe(0);
    expect(org.json).toEqual({
      org_id: expect.stringMatching(/^org_/),
      workspace_id: expect.stringMatching(/^ws_/),
      application_id: expect.stringMatching(/^app_/),
    });

    const ws = admin('workspace', 'create', '--org', org.json.org_id);
    expect(ws.json.workspace_id).toMatch(/^ws_/);

    const key = admin('key', 'create', '--org', org.json.org_id, '--workspace', ws.json.workspace_id, '--scopes', 'candidates.search,limits.v1:read');
    expect(key.status).toBe(0);
    expect(key.json).toEqual({
      key: expect.stringMatching(/^sk_live_ext_[0-9A-Za-z]{32,}$/),
      key_id: expect.stringMatching(/^key_/),
      family_id: expect.stringMatching(/^kf_/),
      name: `Key ${key.json.key.slice(0, 16)}`,
    });

    const who = await api(srv.url, 'GET', '/v1/whoami', { key: key.json.key });
    expect(who.status).toBe(200);
    expect(who.json).toMatchObject({ org_root: org.json.org_id, workspace_id: ws.json.workspace_id, scopes: ['candidates.search', 'limits.v1:read'] });

    const rotated = admin(
      'key',
      'create',
      '--org',
      org.json.org_id,
      '--workspace',
      ws.json.workspace_id,
      '--scopes',
      'candidates.search',
      '--family',
      key.json.family_id,
    );
    expect(rotated.json.family_id).toBe(key.json.family_id);

    const revoked = admin('key', 'revoke', '--key-id', key.json.key_id);
    expect(revoked.status).toBe(0);
    expect(revoked.json).toEqual({ key_id: key.json.key_id, revoked_at: expect.any(String) });
    expect((await api(srv.url, 'GET', '/v1/whoami', { key: key.json.key })).status).toBe(401);
    expect((await api(srv.url, 'GET', '/v1/whoami', { key: rotated.json.key })).status).toBe(200);
  }, 120_000);

  test('key create refuses a test key, which this deployment would refuse on every request: exit 2, one line, nothing made', async () => {
    const org = admin('org', 'create', '--name', 'Envs');
    const base = ['key', 'create', '--org', org.json.org_id, '--workspace', org.json.workspace_id, '--scopes', 'candidates.search'];
    const { ApiKey } = await import('../../core/keys/models');
    for (const environment of ['test', 'staging']) {
      const refused = admin(...base, '--environment', environment);
      expect({ status: refused.status, stdout: refused.stdout, lines: refused.stderr.trim().split('\n').length }).toEqual({ status: 2, stdout: '', lines: 1 });
      expect(refused.stderr).toMatch(/^usage error: --environment .*live/);
    }
    expect(admin(...base, '--environment', 'test').stderr).toContain('accepts live keys only');
    expect(await ApiKey.countDocuments({ orgId: org.json.org_id })).toBe(0);
    expect(admin(...base, '--environment', 'live').json.key).toMatch(/^sk_live_ext_/);
  }, 120_000);

  test('key create --family accepts any unused family string: only an existing family of the same organization and application is accepted', () => {
    const org = admin('org', 'create', '--name', 'Fam');
    const other = admin('org', 'create', '--name', 'Other');
    const base = ['key', 'create', '--org', org.json.org_id, '--workspace', org.json.workspace_id, '--scopes', 'candidates.search'];
    const made = admin(...base, '--family', 'kf_madeUpFamily123');
    expect(made.status).toBe(2);
    expect(made.stdout).toBe('');
    expect(made.stderr).toMatch(/usage error.*kf_madeUpFamily123 does not exist/);
    const foreignKey = admin('key', 'create', '--org', other.json.org_id, '--workspace', other.json.workspace_id, '--scopes', 'candidates.search');
    const foreign = admin(...base, '--family', foreignKey.json.family_id);
    expect(foreign.status).toBe(2);
    const app = admin('application', 'create', '--org', org.json.org_id);
    const first = admin(...base);
    const otherApp = admin(...base, '--family', first.json.family_id, '--application', app.json.application_id);
    expect(otherApp.status).toBe(2);
    expect(otherApp.stderr).toMatch(/belongs to application/);
    const rotated = admin(...base, '--family', first.json.family_id);
    expect(rotated.status).toBe(0);
    expect(rotated.json.family_id).toBe(first.json.family_id);
  }, 120_000);

  test('errors are one line on stderr with a non-zero exit', () => {
    const missing = admin('org', 'create');
    expect(missing.status).not.toBe(0);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toMatch(/--name/);

    const unknownOrg = admin('key', 'create', '--org', 'org_doesnotexist1', '--workspace', 'ws_x', '--scopes', 'candidates.search');
    expect(unknownOrg.status).not.toBe(0);
    expect(unknownOrg.stderr.trim().split('\n')).toHaveLength(1);

    const badScope = admin('org', 'create', '--name', 'B');
    const bad = admin('key', 'create', '--org', badScope.json.org_id, '--workspace', badScope.json.workspace_id, '--scopes', 'everything');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown scopes: everything/);

    const unknownCommand = admin('frobnicate');
    expect(unknownCommand.status).toBe(2);

    // A misspelt flag is refused before anything runs, not ignored in favour of a default.
    const typo = admin('org', 'create', '--name', 'C', '--credit', '5');
    expect(typo.status).toBe(2);
    expect(typo.stderr).toBe('usage error: unknown flag --credit for "org create" (did you mean --credits?)\n');
  }, 120_000);
});
