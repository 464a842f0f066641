import { readFileSync } from 'node:fs';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer, type TLSSocket } from 'node:tls';
import type { Connection } from '@temporalio/client';
import type { Config } from '../../core/config';
import { createTemporalClients, type TemporalClients } from '../../core/temporal/client';
import { TemporalDeadlineError } from '../../core/temporal/deadline';
import { connectWorkerConnection } from '../../worker/createWorker';
import { eventually } from '../support/eventually';
import { makeTemporalTlsFiles, SERVER_NAME, type TemporalTlsFiles } from '../support/temporalTlsCertificates';
import { testConfig } from '../support/testConfig';
import { startTestWorker, type TestWorker } from '../support/testWorker';

/**
 * A production Temporal asks for TLS and a client certificate. The dev server has no TLS of its
 * own, so here it sits behind a TLS-terminating proxy that requires a certificate signed by the
 * test CA (as a cluster with `requireClientAuth` does) and passes the bytes on in plain TCP.
 * The API's client and the worker, built from config as in production, get through; without a
 * certificate, or with one the CA did not sign, the proxy refuses the handshake and the call
 * fails within its deadline, naming the address.
 */

interface MtlsProxy {
  address: string;
  /** Common names of the client certificates of the accepted connections. */
  accepted: string[];
  /** Handshakes refused (no certificate, or one the CA did not sign). */
  refused: string[];
  close(): Promise<void>;
}

async function startMtlsProxy(files: TemporalTlsFiles, upstream: string): Promise<MtlsProxy> {
  const [host, port] = [upstream.slice(0, upstream.lastIndexOf(':')), Number(upstream.slice(upstream.lastIndexOf(':') + 1))];
  const accepted: string[] = [];
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server: TlsServer = createTlsServer(
    {
      cert: readFileSync(files.serverCert),
      key: readFileSync(files.serverKey),
      ca: readFileSync(files.caCert),
      requestCert: true,
      rejectUnauthorized: true,
      // gRPC runs over HTTP/2 and the Rust client insists on negotiating it.
      ALPNProtocols: ['h2'],
    },
    (client: TLSSocket) => {
      accepted.push(String(client.getPeerCertificate().subject?.CN));
      const server = netConnect(port, host);
      track(client);
      track(server);
      client.pipe(server).pipe(client);
      client.on('close', () => server.destroy());
      server.on('close', () => client.destroy());
    },
  );
  server.on('tlsClientError', (err) => refused.push(err.message));
  server.on('connection', track);
  // Reached by name, as a production address is: TLS sends a host name, never an IP, as the server name.
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  return {
    address: `localhost:${(server.address() as AddressInfo).port}`,
    accepted,
    refused,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let files: TemporalTlsFiles;
let proxy: MtlsProxy;
let worker: TestWorker | undefined;

/** A config reaching Temporal through the proxy, with these TLS settings. */
function throughProxy(env: Record<string, string>): Config {
  return testConfig({
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_TLS_CA_FILE: files.caCert,
    // The proxy is reached as localhost; its certificate names only SERVER_NAME, so this setting is what lets the check pass.
    TEMPORAL_TLS_SERVER_NAME: SERVER_NAME,
    TEMPORAL_CONNECT_TIMEOUT_MS: '2000',
    TEMPORAL_CALL_TIMEOUT_MS: '3000',
    ...env,
  });
}

/** The clients the tests made, each over its own connection, closed after the file. */
const made: TemporalClients[] = [];
function clientsOf(config: Config): TemporalClients {
  const clients = createTemporalClients(config);
  made.push(clients);
  return clients;
}

const withCertificate = () => throughProxy({ TEMPORAL_TLS_CERT_FILE: files.clientCert, TEMPORAL_TLS_KEY_FILE: files.clientKey });

beforeAll(async () => {
  files = await makeTemporalTlsFiles();
  proxy = await startMtlsProxy(files, process.env.TEST_TEMPORAL_ADDRESS!);
});

afterAll(async () => {
  await worker?.stop();
  await Promise.all(made.map((c) => c.close()));
  await proxy.close();
});

test("the API's client, built from config with a client certificate, calls Temporal through the proxy", async () => {
  const config = withCertificate();
  const temporal = clientsOf(config);
  const info = await temporal.call('a health check', (client) => client.connection.workflowService.getSystemInfo({}));
  expect(info.serverVersion).toBeTruthy();
  const ns = await temporal.call('a namespace description', (client) =>
    client.connection.workflowService.describeNamespace({ namespace: config.temporal.namespace }),
  );
  expect(ns.namespaceInfo?.name).toBe(config.temporal.namespace);
  expect(proxy.accepted).toContain('talent-platform-worker');
});

test("each config's clients connect as that config says, never through the clients made first", async () => {
  const plain = clientsOf(testConfig());
  const tls = clientsOf(withCertificate());
  const plainClient = await plain.client();
  const tlsClient = await tls.client();
  expect(tlsClient).not.toBe(plainClient);
  expect((tlsClient.connection as Connection).options.address).toBe(proxy.address);
  expect((plainClient.connection as Connection).options.address).toBe(process.env.TEST_TEMPORAL_ADDRESS);
  // One set of clients keeps its one client.
  expect(await tls.client()).toBe(tlsClient);
});

test("the worker's native connection, built from the same config, connects through the proxy and its worker polls", async () => {
  const config = withCertificate();
  const connection = await connectWorkerConnection(config.temporal);
  try {
    const info = await connection.workflowService.getSystemInfo({});
    expect(info.serverVersion).toBeTruthy();
  } finally {
    await connection.close();
  }

  worker = await startTestWorker(config);
  const temporal = clientsOf(config);
  const pollers = await eventually('a poller of the worker on its task queue, seen through the proxy', async () => {
    const r = await temporal.call('a task queue description', (client) =>
      client.connection.workflowService.describeTaskQueue({
        namespace: config.temporal.namespace,
        taskQueue: { name: config.temporal.taskQueue },
        taskQueueType: 1, // workflow
      }),
    );
    return r.pollers.length > 0 && r.pollers;
  });
  expect(pollers.length).toBeGreaterThan(0);
  await worker.stop();
  worker = undefined;
});

/**
 * The call's failure, and whether it came before a timer of `boundMs` started beside the call
 * (when a bound is given). The call's own deadline is a timer too: on a busy machine both wait
 * for the same event loop, and the earlier one still fires first, where a wall-clock time would
 * also count the wait.
 */
async function failure(run: () => Promise<unknown>, boundMs = Infinity): Promise<{ err: Error; inTime: boolean }> {
  let bound: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    if (boundMs !== Infinity) bound = setTimeout(() => resolve('late'), boundMs);
  });
  const failed = run().then(
    () => {
      throw new Error('Temporal answered a connection the proxy should have refused');
    },
    (err: unknown) => ({ err: err as Error }),
  );
  const first = await Promise.race([failed, late]);
  clearTimeout(bound);
  return { err: (await failed).err, inTime: first !== 'late' };
}

test.each([
  ['no client certificate', () => throughProxy({})],
  ['a client certificate the CA did not sign', () => throughProxy({ TEMPORAL_TLS_CERT_FILE: files.strangerCert, TEMPORAL_TLS_KEY_FILE: files.strangerKey })],
])('with %s the proxy refuses the handshake and the call fails within its deadline, naming the address', async (_, config) => {
  const cfg = config();
  const refusedBefore = proxy.refused.length;
  const acceptedBefore = proxy.accepted.length;
  const { err, inTime } = await failure(
    () => clientsOf(cfg).call('a health check', (client) => client.connection.workflowService.getSystemInfo({})),
    cfg.temporal.callTimeoutMs + 1500,
  );
  expect(err).toBeInstanceOf(TemporalDeadlineError);
  expect(err.message).toContain(`Temporal at ${proxy.address} did not answer`);
  expect(inTime).toBe(true);
  expect(proxy.refused.length).toBeGreaterThan(refusedBefore);
  expect(proxy.accepted.length).toBe(acceptedBefore);

  const native = await failure(() => connectWorkerConnection(cfg.temporal), cfg.temporal.connectTimeoutMs + 1500);
  expect(native.err.message).toMatch(new RegExp(`^Temporal at ${proxy.address} (refused the worker connection|did not answer)`));
  expect(native.inTime).toBe(true);
});

test("without TEMPORAL_TLS_SERVER_NAME the proxy's certificate (for temporal.test) does not match localhost and neither connection trusts it", async () => {
  const cfg = testConfig({
    TEMPORAL_ADDRESS: proxy.address,
    TEMPORAL_TLS_CA_FILE: files.caCert,
    TEMPORAL_TLS_CERT_FILE: files.clientCert,
    TEMPORAL_TLS_KEY_FILE: files.clientKey,
    TEMPORAL_CONNECT_TIMEOUT_MS: '2000',
    TEMPORAL_CALL_TIMEOUT_MS: '3000',
  });
  const { err } = await failure(() => clientsOf(cfg).call('a health check', (client) => client.connection.workflowService.getSystemInfo({})));
  expect(err.message).toContain(`Temporal at ${proxy.address} did not answer`);
  const native = await failure(() => connectWorkerConnection(cfg.temporal));
  expect(native.err.message).toMatch(new RegExp(`^Temporal at ${proxy.address} (refused the worker connection|did not answer)`));
});
