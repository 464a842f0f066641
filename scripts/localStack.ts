import { join } from 'node:path';
import { freePort, installServices, portOpen, startFerretDb, startTemporalDev, type RunningService } from './localServices';

/**
 * The one way local code starts the store and Temporal: `npm run dev`, the integration tests'
 * global set-up and the benchmarks. A store or Temporal address that is given is used as is;
 * otherwise FerretDB / the Temporal dev server are installed if missing and started (on the
 * given ports, or free ones), with data and logs in `dir`.
 */
export interface LocalStackOptions {
  dir: string;
  /** A MongoDB URI to use instead of starting FerretDB. */
  mongodbUri?: string;
  /** A Temporal host:port to use instead of starting the dev server. */
  temporalAddress?: string;
  /** Fixed ports (dev); free ones when absent (tests, benchmarks). */
  ports?: { mongo?: number; temporal?: number; temporalUi?: number };
  /** The Temporal dev server keeps its state in this file (dev) instead of memory. */
  temporalDbFile?: string;
  /** Install the time-skipping test server even when Temporal is given (the tests need it). */
  installTemporalAlways?: boolean;
  /** Install messages (only when something is missing). */
  log?: (message: string) => void;
  /** Started services are added here as each starts, so a caller stopping mid-start stops them too. */
  services?: RunningService[];
  /** "starting …" lines (dev prints them; tests and benchmarks stay quiet). */
  announce?: (message: string) => void;
  /** Called once the services are installed, before they start (whose start mostly waits). */
  onInstalled?: () => void;
}

export interface LocalStack {
  /** `mongodb://host:port`, without a database: add `/<name>`. Given URIs keep their own. */
  storeBase: string;
  temporalAddress: string;
  /** What this stack started, first started first. */
  services: RunningService[];
  stop: () => Promise<void>;
}

export class PortInUse extends Error {}

export async function startLocalStack(opts: LocalStackOptions): Promise<LocalStack> {
  const log = opts.log ?? (() => undefined);
  const announce = opts.announce ?? (() => undefined);
  await installServices({ temporal: !opts.temporalAddress || opts.installTemporalAlways === true, ferretdb: !opts.mongodbUri }, log);
  opts.onInstalled?.();
  const services: RunningService[] = opts.services ?? [];
  const stop = async () => {
    for (const s of [...services].reverse()) await s.stop();
  };
  try {
    let storeBase: string;
    if (opts.mongodbUri) {
      storeBase = opts.mongodbUri.replace(/\/[^/?]*(\?.*)?$/, '');
    } else {
      const port = opts.ports?.mongo ?? (await freePort());
      if (opts.ports?.mongo && (await portOpen(port))) throw new PortInUse(`port ${port} is in use; set DEV_MONGODB_PORT, or MONGODB_URI to use that server`);
      announce(`starting FerretDB on 127.0.0.1:${port} (data in ${join(opts.dir, 'ferretdb')})`);
      services.push(await startFerretDb({ port, dataDir: join(opts.dir, 'ferretdb'), logFile: join(opts.dir, 'ferretdb.log') }));
      storeBase = `mongodb://127.0.0.1:${port}`;
    }
    let temporalAddress = opts.temporalAddress;
    if (!temporalAddress) {
      const port = opts.ports?.temporal ?? (await freePort());
      if (opts.ports?.temporal && (await portOpen(port)))
        throw new PortInUse(`port ${port} is in use; set DEV_TEMPORAL_PORT, or TEMPORAL_ADDRESS to use that server`);
      announce(`starting Temporal dev server on 127.0.0.1:${port}${opts.ports?.temporalUi ? ` with its UI on ${opts.ports.temporalUi}` : ''}`);
      services.push(await startTemporalDev({ port, uiPort: opts.ports?.temporalUi, dbFile: opts.temporalDbFile, logFile: join(opts.dir, 'temporal.log') }));
      temporalAddress = `127.0.0.1:${port}`;
    }
    return { storeBase, temporalAddress, services, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
