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

/**
 * The call's failure, and whether it came before a timer of `boundMs` started beside the call.
 * The call's own deadline is a timer too: on a busy machine both wait for the same event loop,
 * and the earlier one still fires first, where a wall-clock time would also count the wait.
 */
async function failure(boundMs: number, run: () => Promise<unknown>): Promise<{ err: unknown; inTime: boolean }> {
  let bound: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (bound = setTimeout(() => resolve('late'), boundMs)));
  const failed = run().then(
    () => {
      throw new Error('the call succeeded with no Temporal there');
    },
    (err: unknown) => ({ err }),
  );
  const first = await Promise.race([failed, late]);
  clearTimeout(bound);
  return { err: (await failed).err, inTime: first !== 'late' };
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
  const { err, inTime } = await failure(700 + 500, () =>
    clientsAt(address).call('the start of contact-retrieval:job_x', (client) =>
      client.workflow.start('contactRetrievalWorkflow', { taskQueue: 'q', workflowId: 'w' }),
    ),
  );
  expect(err).toBeInstanceOf(TemporalDeadlineError);
  expect((err as Error).message).toContain(`Temporal at ${address} did not answer`);
  expect(inTime).toBe(true);
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
    const { err, inTime } = await failure(700 + 500, () =>
      clientsAt(address).call('a description of contact-retrieval:job_x', (client) => client.workflow.getHandle('contact-retrieval:job_x').describe()),
    );
    expect((err as Error).message).toMatch(new RegExp(`^Temporal at ${address} did not answer`));
    expect(inTime).toBe(true);
  });

  test("the worker's connection fails within its limit", async () => {
    const { createWorker } = await import('../../worker/createWorker');
    // Loaded here, as the worker is: the store modules are heavy to load, and the first test times a call.
    const { createDeps } = await import('../../core/deps');
    const { err, inTime } = await failure(400 + 500, () => createWorker(createDeps(configAt(address), { temporal: clientsAt(address), logger: testLogger() })));
    expect((err as Error).message).toBe(`Temporal at ${address} did not answer a worker connection (TEMPORAL_CONNECT_TIMEOUT_MS) within 400 ms`);
    expect(inTime).toBe(true);
  });
});
