import { createServer, type Server, type Socket } from 'node:net';
import { loadConfig } from '../../core/config';
import { createTemporalClients, type TemporalClients } from '../../core/temporal/client';
import { TemporalDeadlineError } from '../../core/temporal/deadline';
import { freePort } from '../../scripts/localServices';
import { testLogger } from '../support/capturedLogs';

/**
 * A call to Temporal fails within its limit, naming what it waited for, when nobody listens at
 * the address and when something accepts the connection but never answers (a server that hangs).
 */
function configAt(address: string) {
  return loadConfig({
    NODE_ENV: 'test',
    TEMPORAL_ADDRESS: address,
    TEMPORAL_CONNECT_TIMEOUT_MS: '400',
    TEMPORAL_CALL_TIMEOUT_MS: '700',
    SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  });
}

async function failure(run: () => Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const t0 = Date.now();
  try {
    await run();
  } catch (err) {
    return { err, ms: Date.now() - t0 };
  }
  throw new Error('the call succeeded with no Temporal there');
}

/** The clients each test made, closed after it. */
const made: TemporalClients[] = [];
function clientsAt(address: string): TemporalClients {
  const clients = createTemporalClients(configAt(address));
  made.push(clients);
  return clients;
}

afterEach(async () => {
  await Promise.all(made.splice(0).map((c) => c.close()));
});

test('nobody listening: the call fails within its limit, naming the address and what it waited for', async () => {
  const address = `127.0.0.1:${await freePort()}`;
  const { err, ms } = await failure(() =>
    clientsAt(address).call('the start of contact-retrieval:job_x', (client) =>
      client.workflow.start('contactRetrievalWorkflow', { taskQueue: 'q', workflowId: 'w' }),
    ),
  );
  expect(err).toBeInstanceOf(TemporalDeadlineError);
  expect((err as Error).message).toContain(`Temporal at ${address} did not answer`);
  expect(ms).toBeLessThan(700 + 500);
});

describe('a server that accepts connections and never answers', () => {
  let server: Server;
  const sockets: Socket[] = [];
  let address: string;
  beforeAll(async () => {
    server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    address = `127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });

  test('the client call fails within its limit', async () => {
    const { err, ms } = await failure(() =>
      clientsAt(address).call('a description of contact-retrieval:job_x', (client) => client.workflow.getHandle('contact-retrieval:job_x').describe()),
    );
    expect((err as Error).message).toMatch(new RegExp(`^Temporal at ${address} did not answer`));
    expect(ms).toBeLessThan(700 + 500);
  });

  test("the worker's connection fails within its limit", async () => {
    const { createWorker } = await import('../../worker/createWorker');
    // Loaded here, as the worker is: the store modules are heavy to load, and the first test times a call.
    const { createDeps } = await import('../../core/deps');
    const { err, ms } = await failure(() => createWorker(createDeps(configAt(address), { temporal: clientsAt(address), logger: testLogger() })));
    expect((err as Error).message).toBe(`Temporal at ${address} did not answer a worker connection (TEMPORAL_CONNECT_TIMEOUT_MS) within 400 ms`);
    expect(ms).toBeLessThan(400 + 500);
  });
});
