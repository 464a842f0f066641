import type { Server } from 'node:http';
import { createApp } from '../../api/app';
import type { Config } from '../../core/config';
import { createDeps, type Deps } from '../../core/deps';
import { pingStore } from '../../core/store/connection';
import { seedPeople } from '../../scripts/seeding/seedPeople';
import { createTenant } from '../support/fixtures';
import { api } from '../support/http';
import { expectProblemResponse } from '../support/problems';
import { startTestApi, type TestApi } from '../support/testApi';
import { testLogger } from '../support/capturedLogs';

/**
 * Each app lives on what its composition root built (core/deps.ts), not on module state: a
 * second app with other settings, in the same process and on the same store, answers by its
 * own settings and reads people through its own indexes.
 */
let first: TestApi;
let second: { url: string; deps: Deps; server: Server };

beforeAll(async () => {
  first = await startTestApi({ SEARCH_DISTINCT_QUERIES_PER_HOUR: '50' });
  await seedPeople({ secretsKey: first.config.secretsKey, count: 200 });
  const config: Config = {
    ...first.config,
    authUrl: 'http://auth-second.example',
    searchQuotas: { ...first.config.searchQuotas, distinctQueriesPerHour: 1 },
  };
  const deps = createDeps(config, { logger: testLogger() });
  const server = createApp({ deps, probes: { store: pingStore, temporal: async () => true } }).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  second = { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, deps, server };
});

afterAll(async () => {
  await new Promise<void>((resolve) => second.server.close(() => resolve()));
  await first.close();
});

test('each app names its own issuer in its discovery document', async () => {
  const a = await api(first.url, 'GET', '/.well-known/oauth-authorization-server');
  const b = await api(second.url, 'GET', '/.well-known/oauth-authorization-server');
  expect(a.json.issuer).toBe(first.config.authUrl);
  expect(b.json.issuer).toBe('http://auth-second.example');
});

test('each app holds searches to its own quota and answers them from its own people index', async () => {
  const tenant = await createTenant({ credits: 100 });
  const search = (url: string, query: string) =>
    api(url, 'POST', '/v1/candidates/search', {
      key: tenant.key,
      body: { query, page_size: 2 },
      idempotencyKey: `side-${url === first.url ? 'first' : 'second'}-${query}`,
    });
  expect((await search(second.url, 'engineer')).status).toBe(200);
  // The second app allows one distinct query an hour; the first, fifty.
  expectProblemResponse(await search(second.url, 'manager'), 429, 'distinct_query_cap');
  expect((await search(first.url, 'manager')).status).toBe(200);
  const own = await second.deps.people.search.get();
  expect(own.size).toBe(200);
});
