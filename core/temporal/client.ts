import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config';
import { TemporalDeadlineError, withTemporalDeadline } from './deadline';

let clientPromise: Promise<Client> | undefined;

export type TemporalSettings = Pick<Config, 'temporal'>;

/** The process's Temporal client, connected on first use; connecting waits at most TEMPORAL_CONNECT_TIMEOUT_MS. */
export function temporalClient(cfg: TemporalSettings): Promise<Client> {
  const { address, namespace, connectTimeoutMs } = cfg.temporal;
  clientPromise ??= Connection.connect({ address, connectTimeout: connectTimeoutMs }).then(
    (connection) => new Client({ connection, namespace }),
    (err) => {
      clientPromise = undefined;
      throw new TemporalDeadlineError('a connection (TEMPORAL_CONNECT_TIMEOUT_MS)', connectTimeoutMs, address, err);
    },
  );
  return clientPromise;
}

/**
 * One call (or a few) to Temporal through the process's client, within `limitMs` (by default
 * TEMPORAL_CALL_TIMEOUT_MS) including the connection; past it, a TemporalDeadlineError naming `what`.
 */
export async function temporalCall<T>(
  cfg: TemporalSettings,
  what: string,
  fn: (client: Client) => Promise<T>,
  limitMs = cfg.temporal.callTimeoutMs,
): Promise<T> {
  const target = { what, limitMs, address: cfg.temporal.address };
  const started = Date.now();
  const client = await withTemporalDeadline(null, target, () => temporalClient(cfg));
  const left = Math.max(1, limitMs - (Date.now() - started));
  return withTemporalDeadline(client.connection, { ...target, limitMs: left }, () => fn(client));
}

export async function pingTemporal(cfg: TemporalSettings): Promise<boolean> {
  try {
    await temporalCall(cfg, 'a health check', (client) => client.connection.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  }
}

/**
 * Forgets the process's connection so the next call connects afresh (after Temporal came back, a
 * new connection answers at once where the old one may sit in gRPC's reconnect back-off). The
 * old connection is closed only after every call on it has passed its deadline: closing it under
 * a call whose client is waiting to retry makes that retry throw from a timer and end the process.
 */
export function dropTemporalClient(cfg: TemporalSettings): void {
  const p = clientPromise;
  clientPromise = undefined;
  if (!p) return;
  const later = setTimeout(
    () => {
      void p.then((c) => c.connection.close()).catch(() => undefined);
    },
    2 * cfg.temporal.callTimeoutMs + 1000,
  );
  later.unref();
}

export async function closeTemporalClient(): Promise<void> {
  const p = clientPromise;
  clientPromise = undefined;
  if (p) await (await p.catch(() => undefined))?.connection.close().catch(() => undefined);
}
