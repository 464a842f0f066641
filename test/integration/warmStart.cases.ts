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
    // Its own requests went through a twin app with a silent logger.
    expect(lines.filter((l) => l.msg === 'request')).toEqual([]);
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
