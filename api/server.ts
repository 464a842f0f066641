import type { Server } from 'node:http';
import { loadConfigOrExit, type Config } from '../core/config';
import type { PublicClients } from '../core/oauth/publicClients';
import type { SigningKeys } from '../core/oauth/signingKeys';
import { openDeps, type Deps } from '../core/deps';
import { createLogger, type Logger } from '../core/observability/logger';
import { pingTemporal } from '../core/temporal/client';
import { describeTemporalConnection } from '../core/temporal/connectionOptions';
import { UsageCounters } from '../core/usage/usageCounters';
import { keepNewKeysReady } from '../core/keys/newKeys';
import { startWorkflowStarter } from '../core/starters/workflowStarter';
import { startMailSender } from '../core/mail/mailSender';
import { createApp } from './app';
import { answerClientErrors } from './clientErrors';
import { warmStart } from './warmStart';
import { errorMessage } from '../core/observability/errorMessage';

/** Keep-alive longer than common load balancers' idle timeouts, so pooled connections are not reset under a client. */
export function tuneServer(server: Server, logger: Logger): void {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 60_000;
  answerClientErrors(server, logger);
}

export async function startApi(
  config: Config,
  /** Parts of the app's dependencies to use instead of the ones it would build (tests). */
  parts: Partial<Omit<Deps, 'config' | 'usage' | 'store' | 'stores'>> = {},
  /** `warmStart`: compile the request path and open the store's connections before listening (api/warmStart.ts); the process entry does. */
  options: { warmStart?: boolean } = {},
): Promise<{
  server: Server;
  url: string;
  close: () => Promise<void>;
  /** What this app's composition root built. */
  deps: Deps;
  /** Writes the usage counted so far (tests read it back at once). */ flushUsage: () => Promise<void>;
  /** The app's signing keys: a rotation through them takes effect in this app at once. */
  signingKeys: SigningKeys;
  /** The app's public clients (tests forget its cached metadata documents). */
  publicClients: PublicClients;
}> {
  const logger = parts.logger ?? createLogger({ level: config.logLevel });
  const opened = await openDeps(config, { ...parts, logger });
  const usage = new UsageCounters(opened.stores, { logger, now: opened.now });
  const deps: Deps = { ...opened, usage };
  usage.start();
  // Kept current from the start, idle or not: a new organization's first request then never waits for its check.
  const limitSettingsDirectory = deps.limitSettings.keepDirectoryCurrent(config);
  // Keys created on any replica are held ready before their first use (core/keys/newKeys.ts).
  const newKeys = keepNewKeysReady(deps.stores.keys, deps.keyReads, config.readCacheMs, deps.now);
  const probes = { store: deps.store.ping, temporal: () => pingTemporal(deps.temporal) };
  const app = createApp({ deps, probes });
  if (options.warmStart)
    // A replica whose warm-up failed still serves, only colder.
    await warmStart({ deps, twinApp: (twinDeps) => createApp({ deps: twinDeps, probes }) }).catch((err: unknown) =>
      logger.warn({ err: { message: errorMessage(err) } }, 'warm start failed; the first requests compile the request path'),
    );
  const server = app.listen(config.port, config.host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  }).catch(async (err: unknown) => {
    // The port is taken, say: give back the store connections this root opened before saying so.
    await usage.stop().catch(() => undefined);
    limitSettingsDirectory.stop();
    newKeys.stop();
    await deps.store.close();
    throw err;
  });
  tuneServer(server, logger);
  const workflowStarter = startWorkflowStarter(config, deps.temporal, logger, deps.now, deps.stores);
  // Mail is due on the app's clock, the clock its notices are queued on.
  const mailSender = startMailSender(deps.stores, config, { logger, now: deps.now, keys: deps.purposeKeys });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host}:${port}`;
  return {
    server,
    url,
    deps,
    flushUsage: () => usage.flush({ all: true }),
    signingKeys: deps.signingKeys,
    publicClients: deps.publicClients,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      // What this replica counted since its last flush is written before the store goes.
      await usage.stop();
      limitSettingsDirectory.stop();
      newKeys.stop();
      // In-flight places this replica still holds go back now instead of at their expiry.
      await deps.admission.close();
      await workflowStarter.stop();
      await mailSender.stop();
      deps.outbound.close();
      // Clients a test handed in are its own to close.
      if (!parts.temporal) await deps.temporal.close();
      await deps.store.close();
    },
  };
}

if (require.main === module) {
  const config = loadConfigOrExit();
  const logger = createLogger({ level: config.logLevel });
  startApi(config, { logger }, { warmStart: config.apiWarmStart }).then(
    ({ url, close, deps }) => {
      logger.info({ url, temporal: describeTemporalConnection(config.temporal) }, 'api listening');
      // A parent that started this process with an IPC channel (the tests, with PORT=0) learns
      // the port the system chose here, instead of picking a "free" one that may be taken first.
      process.send?.({ type: 'api-listening', url });
      deps.people.search.warm();
      const stop = () => {
        logger.info('api stopping');
        close().then(
          () => process.exit(0),
          () => process.exit(1),
        );
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    },
    (err) => {
      logger.fatal({ err: { message: err.message } }, 'api failed to start');
      process.exit(1);
    },
  );
}
