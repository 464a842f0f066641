import { Client } from '@temporalio/client';
import { Worker, type NativeConnection } from '@temporalio/worker';
import type { Config } from '../core/config';
import { SA } from '../core/temporal/searchAttributes';
import { epochNow } from './webhookBenchProcesses';

/**
 * The one-workflow-per-event ceiling on this server and worker: `count` workflows of the
 * command shape of a delivery that succeeds at once (bench/ceilingWorkflow.ts: eager start with
 * the delivery's search attributes, one local activity, the DeliveryStatus upsert, completion), started `concurrency` at a
 * time on a probe task queue served by a worker in this process, with an activity that does no
 * store or network work. No delivery workflow can beat its rate here.
 */
export async function probeCeiling(
  connection: NativeConnection,
  config: Config,
  opts: { count: number; concurrency: number; workflowBundlePath?: string },
): Promise<{ begin: number; lastTouch: number; count: number }> {
  const touched = new Map<string, number>();
  // A queue of this process's own: a probe workflow not started eagerly goes through matching,
  // and a worker of another process would run it where this one's touches are not counted.
  const probeQueue = `${config.temporal.taskQueue}-probe-${process.pid}`;
  const probe = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: probeQueue,
    ...(opts.workflowBundlePath ? { workflowBundle: { codePath: opts.workflowBundlePath } } : { workflowsPath: require.resolve('./ceilingWorkflow') }),
    activities: { touch: async (id: string) => void touched.set(id, epochNow()) },
    maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTasks,
    maxConcurrentLocalActivityExecutions: config.worker.maxConcurrentLocalActivities,
  });
  const running = probe.run();
  const client = new Client({ connection, namespace: config.temporal.namespace });
  const tag = `${process.pid}-${Date.now()}`;
  const probeOne = async (n: number) => {
    const id = `bench-probe-${tag}-${n}`;
    await client.connection.withDeadline(Date.now() + config.temporal.callTimeoutMs, () =>
      client.workflow.start('deliveryCeilingProbe', {
        taskQueue: probeQueue,
        workflowId: id,
        args: [id],
        requestEagerStart: true,
        typedSearchAttributes: [
          { key: SA.orgId, value: 'org_bench' },
          { key: SA.workspaceId, value: 'ws_bench' },
          { key: SA.endpointId, value: 'we_bench' },
          { key: SA.jobId, value: `job_bench${n}` },
          { key: SA.deliveryStatus, value: 'delivering' },
        ],
      }),
    );
    return id;
  };
  const waitTouched = async (ids: string[]) => {
    while (ids.some((id) => !touched.has(id))) await new Promise((r) => setTimeout(r, 5));
  };
  try {
    // Warm-up: workflow cache, connections.
    await waitTouched(await Promise.all(Array.from({ length: 20 }, (_, i) => probeOne(-1 - i))));
    const ids: string[] = [];
    let next = 0;
    const begin = epochNow();
    await Promise.all(
      Array.from({ length: opts.concurrency }, async () => {
        while (next < opts.count) ids.push(await probeOne(next++));
      }),
    );
    await waitTouched(ids);
    return { begin, lastTouch: Math.max(...ids.map((id) => touched.get(id)!)), count: ids.length };
  } finally {
    probe.shutdown();
    await running;
  }
}
