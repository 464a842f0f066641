import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config';

let clientPromise: Promise<Client> | undefined;

/** The process's Temporal client, connected on first use. */
export function temporalClient(cfg: Pick<Config, 'temporal'>): Promise<Client> {
  clientPromise ??= Connection.connect({ address: cfg.temporal.address }).then(
    (connection) => new Client({ connection, namespace: cfg.temporal.namespace }),
    (err) => {
      clientPromise = undefined;
      throw err;
    },
  );
  return clientPromise;
}

export async function pingTemporal(cfg: Pick<Config, 'temporal'>): Promise<boolean> {
  try {
    const client = await temporalClient(cfg);
    await client.connection.workflowService.getSystemInfo({});
    return true;
  } catch {
    return false;
  }
}

export async function closeTemporalClient(): Promise<void> {
  const p = clientPromise;
  clientPromise = undefined;
  if (p) await (await p).connection.close().catch(() => undefined);
}
