import { startApi } from '../../api/server';
import { capturingLogger } from '../support/capturedLogs';
import { createTenant } from '../support/fixtures';
import { testConfig } from '../support/testConfig';

/**
 * An API started as its process entry starts it (api/warmStart.ts before listening): its log
 * holds only what its users did, and the first request of a tenant is answered as any other.
 */
test('a warm start logs none of its own requests, and the first tenant request is answered', async () => {
  const config = testConfig();
  const { logger, lines } = capturingLogger();
  const api = await startApi({ ...config, host: '127.0.0.1', port: 0 }, { logger }, { warmStart: true });
  try {
    // Its own requests went through a twin app with a silent logger, and all of them, the
    // synthetic organizations' keyed requests too, were answered as they should be.
    expect(lines.filter((l) => l.msg === 'request')).toEqual([]);
    expect(lines.filter((l) => /warm start/.test(String(l.msg)))).toEqual([]);
    // The synthetic organizations' admission slots are gone; no key was written for them.
    expect(await api.deps.stores.limits.slotIdsWithPrefix('w:req:org_warm_')).toEqual([]);
    expect(await api.deps.stores.limits.slotIdsWithPrefix('l:org_warm_')).toEqual([]);
    const tenant = await createTenant({ stores: api.deps.stores });
    const res = await fetch(`${api.url}/v1/whoami`, { headers: { authorization: `Bearer ${tenant.key}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { org_root?: string }).org_root).toBe(tenant.orgId);
    // The user's request is the first line the replica logs.
    expect(lines.filter((l) => l.msg === 'request').map((l) => l.status)).toEqual([200]);
  } finally {
    api.server.closeAllConnections();
    await api.close();
  }
});
