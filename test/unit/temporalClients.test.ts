import type { ConnectionOptions } from '@temporalio/client';
import { loadConfig } from '../../core/config';
import { closeDeps, createDeps } from '../../core/deps';
import { closeTemporalClient, createTemporalClients, dropTemporalClient, pingTemporal, temporalClient } from '../../core/temporal/client';

/**
 * The process's Temporal clients, one per connection identity: a config that points elsewhere
 * or authenticates otherwise gets its own client, never the first one made. The SDK's
 * connection is replaced by a stand-in that records what it was asked to connect to.
 */
const connects: ConnectionOptions[] = [];
const closed: string[] = [];

jest.mock('@temporalio/client', () => {
  const actual = jest.requireActual('@temporalio/client');
  return {
    ...actual,
    Connection: {
      connect: jest.fn(async (options: ConnectionOptions) => {
        connects.push(options);
        return {
          options,
          workflowService: {},
          withDeadline: (_deadline: unknown, fn: () => Promise<unknown>) => fn(),
          close: async () => void closed.push(String(options.address)),
        };
      }),
    },
    Client: jest.fn().mockImplementation(({ connection, namespace }) => ({ connection, options: { namespace } })),
  };
});

function load(env: Record<string, string>) {
  return loadConfig({ NODE_ENV: 'test', SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'), ...env });
}

beforeEach(() => {
  connects.length = 0;
  closed.length = 0;
});
afterEach(() => closeTemporalClient());

test('a config with another address, namespace or API key gets its own client; the same settings share one', async () => {
  const a = await temporalClient(load({ TEMPORAL_ADDRESS: 'a.internal:7233' }));
  const b = await temporalClient(load({ TEMPORAL_ADDRESS: 'b.internal:7233' }));
  const otherNamespace = await temporalClient(load({ TEMPORAL_ADDRESS: 'a.internal:7233', TEMPORAL_NAMESPACE: 'other' }));
  const withKey = await temporalClient(load({ TEMPORAL_ADDRESS: 'a.internal:7233', TEMPORAL_API_KEY: 'k1' }));
  const otherKey = await temporalClient(load({ TEMPORAL_ADDRESS: 'a.internal:7233', TEMPORAL_API_KEY: 'k2' }));
  expect(new Set([a, b, otherNamespace, withKey, otherKey]).size).toBe(5);
  expect(connects.map((o) => [o.address, o.apiKey ?? null, Boolean(o.tls)])).toEqual([
    ['a.internal:7233', null, false],
    ['b.internal:7233', null, false],
    ['a.internal:7233', null, false],
    ['a.internal:7233', 'k1', true],
    ['a.internal:7233', 'k2', true],
  ]);
  expect(await temporalClient(load({ TEMPORAL_ADDRESS: 'b.internal:7233' }))).toBe(b);
  expect(connects).toHaveLength(5);
});

test("dropping one config's client leaves the others, and closing closes every one", async () => {
  const configA = load({ TEMPORAL_ADDRESS: 'a.internal:7233' });
  const configB = load({ TEMPORAL_ADDRESS: 'b.internal:7233' });
  const a = await temporalClient(configA);
  const b = await temporalClient(configB);
  dropTemporalClient(configA);
  expect(await temporalClient(configB)).toBe(b);
  expect(await temporalClient(configA)).not.toBe(a);
  await closeTemporalClient();
  expect(closed.sort()).toEqual(['a.internal:7233', 'b.internal:7233']);
});

test('createTemporalClients keeps its own client, apart from the process-wide ones', async () => {
  const config = load({ TEMPORAL_ADDRESS: 'a.internal:7233' });
  const own = createTemporalClients(config);
  const mine = await own.client();
  expect(await own.client()).toBe(mine);
  expect(await temporalClient(config)).not.toBe(mine);
  expect(await own.call('a probe', async (client) => client)).toBe(mine);
  await own.close();
  expect(closed).toEqual(['a.internal:7233']);
});

test("createDeps connects nothing; each app's Temporal clients are its own and closed by the root that built them", async () => {
  const config = load({ TEMPORAL_ADDRESS: 'a.internal:7233' });
  const closedStores: string[] = [];
  const store = (name: string) => ({ ping: async () => true, ensureIndexes: async () => undefined, close: async () => void closedStores.push(name) });
  const first = createDeps(config, { store: store('first') });
  const second = createDeps(config, { store: store('second') });
  expect(connects).toHaveLength(0);
  const a = await first.temporal.client();
  expect(await second.temporal.client()).not.toBe(a);
  expect(await pingTemporal(first.temporal)).toBe(false);
  await closeDeps(first);
  expect({ closed, closedStores }).toEqual({ closed: ['a.internal:7233'], closedStores: ['first'] });
  expect(await second.temporal.call('a probe', async (client) => client)).not.toBe(a);
  await closeDeps(second);
});
