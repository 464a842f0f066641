import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import { clientConnectOptions } from './connectionOptions';
import { TemporalDeadlineError, withTemporalDeadline } from './deadline';

export type TemporalSettings = Pick<Config, 'temporal'>;

/**
 * One configuration's Temporal client: connected on first use, dropped or closed on demand. Each
 * has a connection of its own; a composition root builds it (core/deps.ts), passes it down and
 * closes it.
 */
export interface TemporalClients {
  /** The client, connected on first use; connecting waits at most TEMPORAL_CONNECT_TIMEOUT_MS. */
  client(): Promise<Client>;
  /**
   * One call (or a few) within `limitMs` (by default TEMPORAL_CALL_TIMEOUT_MS) including the
   * connection; past it, a TemporalDeadlineError naming `what`.
   */
  call<T>(what: string, fn: (client: Client) => Promise<T>, limitMs?: number): Promise<T>;
  /**
   * Forgets the connection so the next call connects afresh (after Temporal came back, a new
   * connection answers at once where the old one may sit in gRPC's reconnect back-off). The old
   * connection is closed only after every call on it has passed its deadline: closing it under a
   * call whose client is waiting to retry makes that retry throw from a timer and end the process.
   */
  drop(): void;
  close(): Promise<void>;
}

export function createTemporalClients(cfg: TemporalSettings): TemporalClients {
  const t = cfg.temporal;
  let clientPromise: Promise<Client> | undefined;

  const client = (): Promise<Client> => {
    // The SDK (gRPC and the protocol definitions) loads with the first connection: an app that
    // never reaches Temporal does not pay for it at start-up.
    clientPromise ??= import('@temporalio/client')
      .then(({ Connection, Client }) => Connection.connect(clientConnectOptions(t)).then((connection) => new Client({ connection, namespace: t.namespace })))
      .catch((err: unknown) => {
        clientPromise = undefined;
        throw new TemporalDeadlineError('a connection (TEMPORAL_CONNECT_TIMEOUT_MS)', t.connectTimeoutMs, t.address, err);
      });
    return clientPromise;
  };

  return {
    client,
    async call(what, fn, limitMs = t.callTimeoutMs) {
      const target = { what, limitMs, address: t.address };
      const started = Date.now();
      const c = await withTemporalDeadline(null, target, client);
      const left = Math.max(1, limitMs - (Date.now() - started));
      return withTemporalDeadline(c.connection, { ...target, limitMs: left }, () => fn(c));
    },
    drop() {
      const p = clientPromise;
      clientPromise = undefined;
      if (!p) return;
      const later = setTimeout(
        () => {
          void p.then((c) => c.connection.close()).catch(() => undefined);
        },
        2 * t.callTimeoutMs + 1000,
      );
      later.unref();
    },
    async close() {
      const p = clientPromise;
      clientPromise = undefined;
      if (p) await (await p.catch(() => undefined))?.connection.close().catch(() => undefined);
    },
  };
}

/** Whether Temporal answers (a health check through these clients, within TEMPORAL_CALL_TIMEOUT_MS). */
export async function pingTemporal(temporal: TemporalClients): Promise<boolean> {
  try {
    await temporal.call('a health check', (client) => client.connection.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  }
}
