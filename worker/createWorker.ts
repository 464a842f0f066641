import type { Stores } from '../core/deps';
import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { Config } from '../core/config';
import type { TemporalClients } from '../core/temporal/client';
import { temporalConnectOptions, type TemporalConnectionSettings } from '../core/temporal/connectionOptions';
import { TemporalDeadlineError, withTemporalDeadline } from '../core/temporal/deadline';
import { UsageCounters } from '../core/usage/usageCounters';
import type { LookupAll } from '../core/outbound/destinationPolicy';
import { EagerDeliveryStarts } from '../core/webhooks/jobCompletedEvent';

/** The worker's connection to Temporal (TLS and API key as configured), within TEMPORAL_CONNECT_TIMEOUT_MS. */
export function connectWorkerConnection(t: TemporalConnectionSettings): Promise<NativeConnection> {
  // The native connection has no connect timeout of its own: a timer bounds it.
  return withTemporalDeadline(null, { what: 'a worker connection (TEMPORAL_CONNECT_TIMEOUT_MS)', limitMs: t.connectTimeoutMs, address: t.address }, () =>
    NativeConnection.connect(temporalConnectOptions(t)),
  ).catch((err: unknown) => {
    if (err instanceof TemporalDeadlineError) throw err;
    // A refused handshake (no or wrong client certificate, untrusted server) fails at once; the SDK's message does not say where.
    throw new Error(`Temporal at ${t.address} refused the worker connection: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  });
}

/**
 * A Temporal worker for the configured task queue, running every workflow and activity, with
 * the usage counters its activities count job charges in (started here; the caller stops them
 * once the worker has drained, which writes what is left).
 */
export async function createWorker(
  config: Config,
  /** `temporal`: the worker's Temporal clients (its root closes them), for emissions its own worker cannot start eagerly. */
  opts: { workflowBundlePath?: string; destinationLookup?: LookupAll; temporal: TemporalClients; stores: Stores },
): Promise<{ worker: Worker; connection: NativeConnection; client: Client; usage: UsageCounters }> {
  const { address, callTimeoutMs } = config.temporal;
  const workflowBundlePath = opts.workflowBundlePath ?? config.worker.workflowBundlePath;
  const usage = new UsageCounters(opts.stores);
  const eager = new EagerDeliveryStarts();
  const connection = await connectWorkerConnection(config.temporal);
  const worker = await withTemporalDeadline(
    null,
    { what: 'the worker start-up (namespace check, TEMPORAL_CALL_TIMEOUT_MS)', limitMs: callTimeoutMs, address },
    () =>
      Worker.create({
        connection,
        namespace: config.temporal.namespace,
        taskQueue: config.temporal.taskQueue,
        ...(workflowBundlePath ? { workflowBundle: { codePath: workflowBundlePath } } : { workflowsPath: require.resolve('../workflows') }),
        activities: createActivities(config, { usage, eager, temporal: opts.temporal, destinationLookup: opts.destinationLookup, stores: opts.stores }),
        // A webhook's first attempt is a local activity inside its workflow task, so a slow receiver
        // (15 s at most) holds a workflow task slot meanwhile: slots are cheap, keep plenty, or a
        // burst of slow receivers would stall every other workflow on this worker (jobs included).
        // A worker without a free slot also declines eager starts, so each event then costs the
        // server a trip through matching: size the slots for the slowest receivers (bench/webhooks.ts
        // measures throughput at saturation; see docs/webhooks.md, Throughput).
        maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTasks,
        maxConcurrentLocalActivityExecutions: config.worker.maxConcurrentLocalActivities,
        maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivities,
        // A stop waits for in-flight tasks this long at most, then ends anyway (their work is retried).
        shutdownForceTime: config.worker.shutdownForceMs,
        // After a worker dies, its workflows' next tasks go to any worker once this passes.
        stickyQueueScheduleToStartTimeout: config.worker.stickyQueueTimeoutMs,
      }),
  );
  // Webhook events emitted in this process start their delivery workflow on this worker.
  const client = new Client({ connection, namespace: config.temporal.namespace });
  eager.attach({ client, taskQueue: config.temporal.taskQueue, running: () => worker.getState() === 'RUNNING' });
  usage.start();
  return { worker, connection, client, usage };
}
