import type { Server } from 'node:http';
import { createApp } from '../../api/app';
import { tuneServer } from '../../api/server';
import type { Config } from '../../core/config';
import { logger } from '../../core/observability/logger';
import { connectStore, disconnectStore, ensureIndexes, pingStore } from '../../core/store/connection';
import { closeTemporalClient, pingTemporal } from '../../core/temporal/client';
import { testConfig } from './testConfig';

export interface TestApi {
  url: string;
  config: Config;
  server: Server;
  close: () => Promise<void>;
}

/** The real API over HTTP on a free loopback port, against the test store and Temporal. */
export async function startTestApi(env: Record<string, string> = {}, existing?: Config): Promise<TestApi> {
  const config = existing ?? testConfig(env);
  logger.level = config.logLevel;
  await connectStore(config.mongodbUri);
  await ensureIndexes();
  const app = createApp({ config, probes: { store: pingStore, temporal: () => pingTemporal(config) } });
  const server = app.listen(0, '127.0.0.1');
  tuneServer(server);
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    config: { ...config, baseUrl: config.baseUrl },
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await closeTemporalClient();
      await disconnectStore();
    },
  };
}
