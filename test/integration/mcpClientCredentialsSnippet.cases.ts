import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MCP_CLIENT_CREDENTIALS_SNIPPET } from '../../api/reference/firstCallGuide';
import { createClient } from '../../core/oauth/clients';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { createTenant } from '../support/fixtures';
import { startTestApi, type TestApi } from '../support/testApi';
import { AUTH_URL, MCP_URL, OAUTH_ENV } from './oauthTestClient';
import { fileStores } from '../support/testStore';

/**
 * The MCP SDK snippet the reference and docs/oauth-and-tool-server.md print, run as printed
 * against the service: its imports become requires and its lines the body of one async function
 * (the snippet is written for a module with top-level await); the public URLs it fetches are
 * routed to the test server, as the other OAuth tests do.
 */
let srv: TestApi;
let dir: string;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  srv = await startTestApi(OAUTH_ENV);
  const tenant = await createTenant({ credits: 100 });
  await seedPeople(srv.deps.stores, { purposeKeys: srv.deps.purposeKeys, count: 20 });
  const m2m = await createClient(fileStores(), { orgId: tenant.orgId, rateLimitPerMinute: 1000 }, new Date());
  Object.assign(process.env, { M2M_CLIENT_ID: m2m.client_id, M2M_CLIENT_SECRET: m2m.client_secret, AUTH_URL, MCP_URL });
  globalThis.fetch = (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const routed = url.origin === AUTH_URL || url.origin === MCP_URL ? new URL(url.pathname + url.search, srv.url) : url;
    return realFetch(input instanceof Request ? new Request(routed, input) : routed, init);
  };
  dir = mkdtempSync(join(__dirname, '.snippet-'));
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  for (const name of ['M2M_CLIENT_ID', 'M2M_CLIENT_SECRET', 'AUTH_URL', 'MCP_URL']) delete process.env[name];
  if (dir) rmSync(dir, { recursive: true, force: true });
  await srv?.close();
});

test('the client-credentials snippet connects, lists the tools and calls one', async () => {
  const imports = MCP_CLIENT_CREDENTIALS_SNIPPET.split('\n').filter((l) => l.startsWith('import '));
  const body = MCP_CLIENT_CREDENTIALS_SNIPPET.split('\n').filter((l) => !l.startsWith('import '));
  const file = join(dir, 'snippet.ts');
  writeFileSync(
    file,
    [
      ...imports.map((l) => l.replace(/^import (\{[^}]*\}) from ('[^']+');$/, 'const $1 = require($2);')),
      'module.exports = async () => {',
      ...body,
      '  return { tools, result };',
      '};',
    ].join('\n'),
  );
  const run = require(file) as () => Promise<{
    tools: Array<{ name: string }>;
    result: { isError?: boolean; structuredContent?: { search_id?: string; data?: unknown[] } };
  }>;
  const { tools, result } = await run();
  expect(tools.map((t) => t.name)).toContain('search_candidates');
  expect(result.isError).toBeFalsy();
  // A real search answer (the seeded people may hold no rust engineer: an empty page is free).
  expect(result.structuredContent).toMatchObject({ search_id: expect.stringMatching(/^srch_/), data: expect.any(Array) });
});
