import { runAdmin, runAdminWith, type AdminResult } from '../support/adminCli';
import { api } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';

let srv: TestApi;

beforeAll(async () => {
  srv = await startTestApi();
});
afterAll(async () => srv.close());

/** The operator CLI's own entry in this process, with the test API's dependencies (store, Temporal clients). */
const admin = (...args: string[]): Promise<AdminResult> => runAdminWith(srv.deps, args);

describe('operator CLI', () => {
  test('provisions an organization and a key that works, then revokes it', async () => {
    const org = await admin('org', 'create', '--name', 'Acme', '--credits', '50');
    expect(org.status).toBe(0);
    expect(org.json).toEqual({
      org_id: expect.stringMatching(/^org_/),
      workspace_id: expect.stringMatching(/^ws_/),
      application_id: expect.stringMatching(/^app_/),
    });

    const ws = await admin('workspace', 'create', '--org', org.json.org_id);
    expect(ws.json.workspace_id).toMatch(/^ws_/);

    const key = await admin('key', 'create', '--org', org.json.org_id, '--workspace', ws.json.workspace_id, '--scopes', 'candidates.search,limits.v1:read');
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

    const rotated = await admin(
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

    const revoked = await admin('key', 'revoke', '--key-id', key.json.key_id);
    expect(revoked.status).toBe(0);
    expect(revoked.json).toEqual({ key_id: key.json.key_id, revoked_at: expect.any(String) });
    expect((await api(srv.url, 'GET', '/v1/whoami', { key: key.json.key })).status).toBe(401);
    expect((await api(srv.url, 'GET', '/v1/whoami', { key: rotated.json.key })).status).toBe(200);
  }, 120_000);

  test('key create refuses a test key, which this deployment would refuse on every request: exit 2, one line, nothing made', async () => {
    const org = await admin('org', 'create', '--name', 'Envs');
    const base = ['key', 'create', '--org', org.json.org_id, '--workspace', org.json.workspace_id, '--scopes', 'candidates.search'];
    for (const environment of ['test', 'staging']) {
      const refused = await admin(...base, '--environment', environment);
      expect({ status: refused.status, stdout: refused.stdout, lines: refused.stderr.trim().split('\n').length }).toEqual({ status: 2, stdout: '', lines: 1 });
      expect(refused.stderr).toMatch(/^usage error: --environment .*live/);
    }
    expect((await admin(...base, '--environment', 'test')).stderr).toContain('accepts live keys only');
    expect(await srv.deps.stores.keys.keysOfOrg(org.json.org_id)).toEqual([]);
    expect((await admin(...base, '--environment', 'live')).json.key).toMatch(/^sk_live_ext_/);
  }, 120_000);

  test('key create --family accepts any unused family string: only an existing family of the same organization and application is accepted', async () => {
    const org = await admin('org', 'create', '--name', 'Fam');
    const other = await admin('org', 'create', '--name', 'Other');
    const base = ['key', 'create', '--org', org.json.org_id, '--workspace', org.json.workspace_id, '--scopes', 'candidates.search'];
    const made = await admin(...base, '--family', 'kf_madeUpFamily123');
    expect(made.status).toBe(2);
    expect(made.stdout).toBe('');
    expect(made.stderr).toMatch(/usage error.*kf_madeUpFamily123 does not exist/);
    const foreignKey = await admin('key', 'create', '--org', other.json.org_id, '--workspace', other.json.workspace_id, '--scopes', 'candidates.search');
    const foreign = await admin(...base, '--family', foreignKey.json.family_id);
    expect(foreign.status).toBe(2);
    const app = await admin('application', 'create', '--org', org.json.org_id);
    const first = await admin(...base);
    const otherApp = await admin(...base, '--family', first.json.family_id, '--application', app.json.application_id);
    expect(otherApp.status).toBe(2);
    expect(otherApp.stderr).toMatch(/belongs to application/);
    const rotated = await admin(...base, '--family', first.json.family_id);
    expect(rotated.status).toBe(0);
    expect(rotated.json.family_id).toBe(first.json.family_id);
  }, 120_000);

  test('errors are one line on stderr with a non-zero exit', async () => {
    const missing = await admin('org', 'create');
    expect(missing.status).not.toBe(0);
    expect(missing.stdout).toBe('');
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    expect(missing.stderr).toMatch(/--name/);

    const unknownOrg = await admin('key', 'create', '--org', 'org_doesnotexist1', '--workspace', 'ws_x', '--scopes', 'candidates.search');
    expect(unknownOrg.status).not.toBe(0);
    expect(unknownOrg.stderr.trim().split('\n')).toHaveLength(1);

    const badScope = await admin('org', 'create', '--name', 'B');
    const bad = await admin('key', 'create', '--org', badScope.json.org_id, '--workspace', badScope.json.workspace_id, '--scopes', 'everything');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/unknown scopes: everything/);

    const unknownCommand = await admin('frobnicate');
    expect(unknownCommand.status).toBe(2);

    // A misspelt flag is refused before anything runs, not ignored in favour of a default.
    const typo = await admin('org', 'create', '--name', 'C', '--credit', '5');
    expect(typo.status).toBe(2);
    expect(typo.stderr).toBe('usage error: unknown flag --credit for "org create" (did you mean --credits?)\n');
  }, 120_000);
});

/**
 * The CLI as a process, as an operator runs it: what only a process shows stays proven here
 * (its configuration read from the environment, its exit status, what reaches its streams);
 * every other case runs the same entry in this process, a node start-up cheaper each.
 */
describe('operator CLI as a process', () => {
  test('exit 0 with one JSON object on stdout, against the store its environment names', async () => {
    const org = runAdmin(srv.config, ['org', 'create', '--name', 'Process', '--credits', '7']);
    expect({ status: org.status, stderr: org.stderr }).toEqual({ status: 0, stderr: '' });
    expect(org.stdout.trim().split('\n')).toHaveLength(1);
    expect(org.json).toEqual({
      org_id: expect.stringMatching(/^org_/),
      workspace_id: expect.stringMatching(/^ws_/),
      application_id: expect.stringMatching(/^app_/),
    });
    // Made in the store this test file reads: the process took MONGODB_URI from its environment.
    const shown = await admin('credits', 'show', '--org', org.json.org_id);
    expect(shown.json).toMatchObject({ org_id: org.json.org_id, balance: 7 });
  }, 120_000);

  test('exit 2 for a usage error and exit 1 for a failure, each one line on stderr and nothing on stdout', () => {
    const typo = runAdmin(srv.config, ['org', 'create', '--name', 'C', '--credit', '5']);
    expect({ status: typo.status, stdout: typo.stdout, stderr: typo.stderr }).toEqual({
      status: 2,
      stdout: '',
      stderr: 'usage error: unknown flag --credit for "org create" (did you mean --credits?)\n',
    });
    const unknownOrg = runAdmin(srv.config, ['key', 'create', '--org', 'org_doesnotexist1', '--workspace', 'ws_x', '--scopes', 'candidates.search']);
    expect({ status: unknownOrg.status, stdout: unknownOrg.stdout, lines: unknownOrg.stderr.trim().split('\n').length }).toEqual({
      status: 1,
      stdout: '',
      lines: 1,
    });
    expect(unknownOrg.stderr).toMatch(/^error: /);
  }, 120_000);

  test('a store that cannot be reached: exit 1, one line naming the store without its password or the secrets key', () => {
    const r = runAdmin(srv.config, ['org', 'create', '--name', 'Nowhere'], {
      MONGODB_URI: 'mongodb://operator:s3cretPassw0rd@127.0.0.1:1/nowhere',
      STORE_STARTUP_WAIT_MS: '0',
      STORE_SERVER_SELECTION_TIMEOUT_MS: '300',
    });
    expect({ status: r.status, stdout: r.stdout, lines: r.stderr.trim().split('\n').length }).toEqual({ status: 1, stdout: '', lines: 1 });
    expect(r.stderr).toContain('mongodb://127.0.0.1:1/nowhere');
    expect(r.stderr).not.toContain('s3cretPassw0rd');
    expect(r.stderr).not.toContain(srv.config.secretsKey.toString('base64'));
  }, 120_000);
});
