import type { Server } from 'node:http';
import { createApp } from '../../api/app';
import { startApi } from '../../api/server';
import type { Config } from '../../core/config';
import type { Deps } from '../../core/deps';
import type { PublicClients } from '../../core/oauth/publicClients';
import type { SigningKeys } from '../../core/oauth/signingKeys';
import { testLogger } from './capturedLogs';
import { testConfig } from './testConfig';
import { rememberFileStores } from './testStore';

export interface TestApi {
  url: string;
  config: Config;
  server: Server;
  close: () => Promise<void>;
  /** Writes the usage this API counted so far, so a test reads it back without waiting for the timer. */
  flushUsage: () => Promise<void>;
  /** The API's signing keys: a rotation through them takes effect at once. */
  signingKeys: SigningKeys;
  /** The API's public clients: `forgetDocuments()` as if the metadata documents' cache times had passed. */
  publicClients: PublicClients;
  /** What the API's composition root built (its Temporal clients, caches, clock). */
  deps: Deps;
}

/**
 * The real API over HTTP, started by the same `startApi` as `api/server.ts`, on a loopback port
 * the system chooses (port 0), against the test store and Temporal.
 */
export async function startTestApi(env: Record<string, string> = {}, existing?: Config, parts: Parameters<typeof startApi>[1] = {}): Promise<TestApi> {
  const config = existing ?? testConfig(env);
  const api = await startApi({ ...config, host: '127.0.0.1', port: 0 }, { logger: testLogger(config.logLevel), ...parts });
  const forgetStores = rememberFileStores(api.deps.stores);
  return {
    url: api.url,
    config,
    server: api.server,
    flushUsage: api.flushUsage,
    signingKeys: api.signingKeys,
    publicClients: api.publicClients,
    deps: api.deps,
    close: async () => {
      // A test may leave a stream open (an SSE response, a hanging client): end it, or the
      // server's graceful close would wait for it.
      api.server.closeAllConnections();
      forgetStores();
      await api.close();
    },
  };
}

/**
 * Another app in this test process, built on `deps` (core/deps.ts) and served on a loopback port:
 * a replica of its own that shares only the store connection (opened by the test or by
 * `startTestApi`) with the others, as API processes share the store. Closing it gives back its
 * in-flight places and leaves the store connection open.
 */
export async function serveApp(deps: Deps): Promise<{ url: string; deps: Deps; close: () => Promise<void> }> {
  const server = createApp({ deps, probes: { store: () => deps.store.ping(), temporal: async () => true } }).listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    deps,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await deps.admission.close();
    },
  };
}
