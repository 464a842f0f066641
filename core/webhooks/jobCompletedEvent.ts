import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { TemporalClients } from '../temporal/client';
import type { WebhookStores } from './store/webhookStore';
import { emitJobCompletedWith, type EmittedEvent, type JobCompletedInput } from './webhookEvents';

/**
 * The seam between contact-retrieval jobs and webhooks: the job workflow's finishing activity
 * calls `emitJobCompleted` exactly once per job (it may be retried: it must be idempotent).
 * It fixes the event's body bytes at first emission and starts the delivery workflow
 * `webhook-event:<event_id>` when the workspace has an active endpoint.
 */
/**
 * A worker running in this process, with a client over the worker's own connection. Emission
 * happens in the worker (the job's finishing activity), so the delivery workflow can start
 * eagerly: the server hands its first workflow task straight back in the start response instead
 * of queueing it for a poller, which saves a dispatch per event and most of the time to the
 * first POST. Any other process (or a stopped worker) starts through its Temporal clients.
 */
export interface LocalWorker {
  client: Client;
  taskQueue: string;
  running: () => boolean;
}

/**
 * The worker process's own worker, once it exists: the worker's composition root builds this
 * before its activities (which emit events) and attaches the worker after creating it.
 */
export class EagerDeliveryStarts {
  private worker: LocalWorker | undefined;

  attach(worker: LocalWorker): void {
    this.worker = worker;
  }

  /** The local worker when it polls `taskQueue` and is running; undefined otherwise. */
  on(taskQueue: string): LocalWorker | undefined {
    const w = this.worker;
    return w && w.taskQueue === taskQueue && w.running() ? w : undefined;
  }
}

/** What an emission reads of the config: Temporal, the secrets key (event ids) and RETRY_DELAYS_MS. */
export type EmitSettings = Pick<Config, 'temporal' | 'secretsKey' | 'webhooks'>;

/** Where an emission reaches Temporal from. */
export interface EmitVia {
  /** The app's or worker's Temporal clients. */
  temporal: TemporalClients;
  /** The worker process's own worker, which starts the delivery workflow eagerly. */
  eager?: EagerDeliveryStarts;
  /** The app's or worker's clock: the event is recorded at its time. */
  now: () => number;
  /** The app's or worker's stores: the event is recorded in them. */
  stores: WebhookStores;
}

/** Same job → same event id and body bytes; a duplicate emission never starts a second workflow. */
export async function emitJobCompleted(cfg: EmitSettings, input: JobCompletedInput, via: EmitVia): Promise<EmittedEvent> {
  const local = via.eager?.on(cfg.temporal.taskQueue);
  return emitJobCompletedWith(
    {
      stores: via.stores,
      client: local?.client ?? (await via.temporal.client()),
      eagerStart: local !== undefined,
      idKey: cfg.secretsKey,
      taskQueue: cfg.temporal.taskQueue,
      retryDelaysMs: cfg.webhooks.retryDelaysMs,
      startLimitMs: cfg.temporal.callTimeoutMs,
      now: () => new Date(via.now()),
    },
    input,
  );
}
