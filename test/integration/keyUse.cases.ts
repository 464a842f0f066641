import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { authenticate } from '../../api/middleware/authenticate';
import { problemDocuments } from '../../api/middleware/problemDocuments';
import { KeyReads, revokeApiKey } from '../../core/keys/apiKeys';
import { gatheredKeyUseWrite, KEY_USE_PERIOD_MS, KeyUseRecorder, keyUseWrite } from '../../core/keys/keyUse';
import { PERMISSIONS } from '../../core/keys/permissions';
import { runAdminWith } from '../support/adminCli';
import { eventually } from '../support/eventually';
import { capturingLogger } from '../support/capturedLogs';
import { createTenant } from '../support/fixtures';
import { api } from '../support/http';
import { startTestApi, type TestApi } from '../support/testApi';

let srv: TestApi;

beforeAll(async () => {
  srv = await startTestApi();
});
afterAll(async () => srv.close());

/** The real authentication middleware in front of a handler that answers 200, with the given recorder. */
async function authenticatedApp(recorder: KeyUseRecorder): Promise<{ url: string; close: () => Promise<void> }> {
  const app = new Koa();
  app.silent = true;
  app.use(problemDocuments());
  app.use(authenticate(srv.config, new KeyReads(srv.deps.stores.keys), undefined, recorder));
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const storedUse = async (keyId: string) => (await srv.deps.stores.keys.findKey(keyId))?.lastUsedAt ?? null;

describe('last use of an API key', () => {
  test('100 requests within a minute are one store write, the next minute another; a revoked key is refused on its very next request', async () => {
    const tenant = await createTenant({ scopes: [PERMISSIONS.limitsRead] });
    const clock = { now: Date.UTC(2026, 0, 5, 9, 0, 0) };
    const pending: Promise<void>[] = [];
    const changes: boolean[] = [];
    const recorder = new KeyUseRecorder(
      srv.deps.logger,
      async (keyId, at) => {
        const changed = await keyUseWrite(srv.deps.stores)(keyId, at);
        changes.push(changed);
        return changed;
      },
      () => clock.now,
    );
    const noting = recorder.note.bind(recorder);
    recorder.note = (keyId) => {
      const p = noting(keyId);
      if (p) pending.push(p);
      return p;
    };
    const app = await authenticatedApp(recorder);
    try {
      const start = clock.now;
      for (let i = 0; i < 100; i++) {
        expect((await api(app.url, 'GET', '/', { key: tenant.key })).status).toBe(200);
        clock.now += 500; // 100 requests over 50 seconds
      }
      await Promise.all(pending);
      expect(changes).toEqual([true]);
      expect(await storedUse(tenant.keyId)).toEqual(new Date(start));

      clock.now = start + KEY_USE_PERIOD_MS;
      expect((await api(app.url, 'GET', '/', { key: tenant.key })).status).toBe(200);
      await Promise.all(pending);
      expect(changes).toEqual([true, true]);
      expect(await storedUse(tenant.keyId)).toEqual(new Date(start + KEY_USE_PERIOD_MS));

      // Nothing remembered about the key's use stands in for verifying it.
      await revokeApiKey(srv.deps.stores, srv.config, tenant.keyId, new Date());
      expect((await api(app.url, 'GET', '/', { key: tenant.key })).status).toBe(401);
      expect(pending).toHaveLength(2);
    } finally {
      await app.close();
    }
  });

  test('a second replica writing within the same minute changes nothing in the store', async () => {
    const tenant = await createTenant({ scopes: [PERMISSIONS.limitsRead] });
    const at = new Date(Date.UTC(2026, 0, 5, 10, 0, 0));
    expect(await keyUseWrite(srv.deps.stores)(tenant.keyId, at)).toBe(true);
    expect(await keyUseWrite(srv.deps.stores)(tenant.keyId, new Date(at.getTime() + 30_000))).toBe(false);
    expect(await storedUse(tenant.keyId)).toEqual(at);
    expect(await keyUseWrite(srv.deps.stores)(tenant.keyId, new Date(at.getTime() + KEY_USE_PERIOD_MS))).toBe(true);
  });

  test("gathered writes store each key's own use in one command, and change nothing within the minute", async () => {
    const [a, b] = [await createTenant({ scopes: [PERMISSIONS.limitsRead] }), await createTenant({ scopes: [PERMISSIONS.limitsRead] })];
    const at = new Date(Date.UTC(2026, 0, 5, 11, 0, 0));
    const write = gatheredKeyUseWrite(srv.deps.stores);
    await Promise.all([write(a.keyId, at), write(b.keyId, new Date(at.getTime() + 1_000))]);
    expect([await storedUse(a.keyId), await storedUse(b.keyId)]).toEqual([at, new Date(at.getTime() + 1_000)]);
    await Promise.all([write(a.keyId, new Date(at.getTime() + 30_000)), write(b.keyId, new Date(at.getTime() + KEY_USE_PERIOD_MS + 1_000))]);
    expect([await storedUse(a.keyId), await storedUse(b.keyId)]).toEqual([at, new Date(at.getTime() + KEY_USE_PERIOD_MS + 1_000)]);
  });

  test('the answer never waits for the write, and a failing write fails no request', async () => {
    const tenant = await createTenant({ scopes: [PERMISSIONS.limitsRead] });
    const failures = capturingLogger();
    const hanging = await authenticatedApp(new KeyUseRecorder(srv.deps.logger, () => new Promise<boolean>(() => undefined)));
    const failing = await authenticatedApp(new KeyUseRecorder(failures.logger, () => Promise.reject(new Error('store write refused'))));
    try {
      expect((await api(hanging.url, 'GET', '/', { key: tenant.key })).status).toBe(200);
      expect((await api(failing.url, 'GET', '/', { key: tenant.key })).status).toBe(200);
      const logged = await eventually('the failed write logged', () => failures.lines.length > 0 && failures.lines);
      expect(logged.map((l) => [l.level, l.msg])).toEqual([[40, 'recording the last use of an API key failed']]);
    } finally {
      await hanging.close();
      await failing.close();
    }
  });

  test('the API records a use that the operator CLI lists with the key name', async () => {
    const org = (await runAdminWith(srv.deps, ['org', 'create', '--name', 'Key names'])).json;
    const keyCreate = (...extra: string[]) =>
      runAdminWith(srv.deps, ['key', 'create', '--org', org.org_id, '--workspace', org.workspace_id, '--scopes', 'limits.v1:read', ...extra]);
    const named = await keyCreate('--name', ' CI deploys ');
    expect(named.status).toBe(0);
    expect(named.json).toMatchObject({ name: 'CI deploys', key_id: expect.stringMatching(/^key_/) });
    const rotated = (await keyCreate('--family', named.json.family_id)).json;
    expect(rotated.name).toBe('CI deploys');
    const unnamed = (await keyCreate()).json;
    expect(unnamed.name).toBe(`Key ${unnamed.key.slice(0, 16)}`);
    const blank = await keyCreate('--name=  ');
    expect(blank.status).toBe(2);
    expect(blank.stderr).toMatch(/must not be blank/);

    const before = Date.now();
    expect((await api(srv.url, 'GET', '/v1/whoami', { key: named.json.key })).status).toBe(200);
    const used = await eventually('the key use to be stored', async () => (await storedUse(named.json.key_id)) ?? undefined);
    expect(used.getTime()).toBeGreaterThanOrEqual(before - 1000);

    const list = await runAdminWith(srv.deps, ['key', 'list', '--org', org.org_id]);
    expect(list.status).toBe(0);
    expect(list.stdout).not.toContain(named.json.key);
    expect(list.json.keys).toEqual([
      expect.objectContaining({
        key_id: named.json.key_id,
        name: 'CI deploys',
        status: 'active',
        last_used_at: used.toISOString(),
        display_prefix: named.json.key.slice(0, 16),
      }),
      expect.objectContaining({ key_id: rotated.key_id, name: 'CI deploys', family_id: named.json.family_id, last_used_at: null }),
      expect.objectContaining({ key_id: unnamed.key_id, name: unnamed.name, last_used_at: null }),
    ]);
    expect(list.json.keys[0]).not.toHaveProperty('hash');
  });
});
