import type { ConnectionOptions } from '@temporalio/client';
import mongoose from 'mongoose';
import { loadConfig } from '../../core/config';
import { closeDeps, createDeps } from '../../core/deps';
import { createTemporalClients, pingTemporal, type TemporalClients, type TemporalSettings } from '../../core/temporal/client';
import { testLogger } from '../support/capturedLogs';

/**
 * Temporal clients built per config by a composition root: each set connects as its config
 * says (server, namespace, API key) and keeps its own client, never one another set made. The
 * SDK's connection is replaced by a stand-in that records what it was asked to connect to.
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

/** The clients each test made, closed after it. */
const made: TemporalClients[] = [];
function clientsOf(config: TemporalSettings): TemporalClients {
  const clients = createTemporalClients(config);
  made.push(clients);
  return clients;
}
afterEach(async () => {
  await Promise.all(made.splice(0).map((c) => c.close()));
});

test('clients built from a config with another address, namespace or API key connect as it says; one set of clients keeps one client', async () => {
  const a = await clientsOf(load({ TEMPORAL_ADDRESS: 'a.internal:7233' })).client();
  const clientsB = clientsOf(load({ TEMPORAL_ADDRESS: 'b.internal:7233' }));
  const b = await clientsB.client();
  const otherNamespace = await clientsOf(load({ TEMPORAL_ADDRESS: 'a.internal:7233', TEMPORAL_NAMESPACE: 'other' })).client();
  const withKey = await clientsOf(load({ TEMPORAL_ADDRESS: 'a.internal:7233', TEMPORAL_API_KEY: 'k1' })).client();
  const otherKey = await clientsOf(load({ TEMPORAL_ADDRESS: 'a.internal:7233', TEMPORAL_API_KEY: 'k2' })).client();
  expect(new Set([a, b, otherNamespace, withKey, otherKey]).size).toBe(5);
  expect(connects.map((o) => [o.address, o.apiKey ?? null, Boolean(o.tls)])).toEqual([
    ['a.internal:7233', null, false],
    ['b.internal:7233', null, false],
    ['a.internal:7233', null, false],
    ['a.internal:7233', 'k1', true],
    ['a.internal:7233', 'k2', true],
  ]);
  expect([a, otherNamespace].map((c) => c.options.namespace)).toEqual(['default', 'other']);
  expect(await clientsB.client()).toBe(b);
  expect(connects).toHaveLength(5);
});

test("dropping one config's client leaves the others, and closing each closes its own", async () => {
  const clientsA = clientsOf(load({ TEMPORAL_ADDRESS: 'a.internal:7233' }));
  const clientsB = clientsOf(load({ TEMPORAL_ADDRESS: 'b.internal:7233' }));
  const a = await clientsA.client();
  const b = await clientsB.client();
  clientsA.drop();
  expect(await clientsB.client()).toBe(b);
  expect(await clientsA.client()).not.toBe(a);
  await clientsA.close();
  await clientsB.close();
  expect(closed.sort()).toEqual(['a.internal:7233', 'b.internal:7233']);
});

test('each createTemporalClients keeps its own client, also beside others built from the same config', async () => {
  const config = load({ TEMPORAL_ADDRESS: 'a.internal:7233' });
  const own = createTemporalClients(config);
  const mine = await own.client();
  expect(await own.client()).toBe(mine);
  expect(await clientsOf(config).client()).not.toBe(mine);
  expect(await own.call('a probe', async (client) => client)).toBe(mine);
  await own.close();
  expect(closed).toEqual(['a.internal:7233']);
});

test("createDeps connects nothing; each app's Temporal clients are its own and closed by the root that built them", async () => {
  const config = load({ TEMPORAL_ADDRESS: 'a.internal:7233' });
  const closedStores: string[] = [];
  const store = (name: string) => ({
    connection: mongoose.createConnection(),
    ping: async () => true,
    ensureIndexes: async () => undefined,
    close: async () => void closedStores.push(name),
  });
  const first = createDeps(config, { logger: testLogger(), store: store('first') });
  const second = createDeps(config, { logger: testLogger(), store: store('second') });
  expect(connects).toHaveLength(0);
  const a = await first.temporal.client();
  expect(await second.temporal.client()).not.toBe(a);
  expect(await pingTemporal(first.temporal)).toBe(false);
  await closeDeps(first);
  expect({ closed, closedStores }).toEqual({ closed: ['a.internal:7233'], closedStores: ['first'] });
  expect(await second.temporal.call('a probe', async (client) => client)).not.toBe(a);
  await closeDeps(second);
});
