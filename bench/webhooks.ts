/**
 * Webhook delivery benchmark: N `job.completed` events emitted through `emitJobCompleted`,
 * delivered by a real worker (Temporal dev server, FerretDB) to a local HTTPS receiver, beside
 * the ceiling measured in the same run: a plain loop of signed HTTPS POSTs to the same
 * receiver through the same sender (destination check, pinned address, keep-alive).
 *
 *   npx tsx bench/webhooks.ts     (starts its own FerretDB and Temporal unless MONGODB_URI /
 *                                  TEMPORAL_ADDRESS are set)
 *
 * BENCH_EVENTS (default 1000) events in the throughput phase, emitted BENCH_CONCURRENCY
 * (default 32) at a time; BENCH_LATENCY_EVENTS (default 100) events emitted one after another
 * for the unloaded emission-to-first-POST latency. Targets: p50 ≤ 100 ms, ≥ 200 deliveries/s.
 *
 * Three ceilings, measured in the same run: signed HTTPS POSTs from a plain loop (the sender and
 * receiver), bare workflow starts (the Temporal server's start rate), and one workflow per
 * event doing nothing but a delivery's workflow steps (bench/ceilingWorkflow.ts): no delivery
 * workflow can beat the last on this server and worker.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { Runtime, DefaultLogger, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import { loadConfig, setConfig } from '../core/config';
import { logger } from '../core/observability/logger';
import { connectStore, disconnectStore, ensureIndexes } from '../core/store/connection';
import { closeTemporalClient, temporalClient } from '../core/temporal/client';
import { SA } from '../core/temporal/searchAttributes';
import { destinationLookup } from '../core/webhooks/destinationResolver';
import { emitJobCompleted } from '../core/webhooks/jobCompletedEvent';
import { closeAttemptAgents, sendAttempt } from '../core/webhooks/sendAttempt';
import { signedHeaders } from '../core/webhooks/signPayload';
import { registerEndpoint } from '../core/webhooks/webhookEndpoints';
import { createOrganization } from '../core/tenancy/provisioning';
import { startLocalStack } from '../scripts/localStack';
import type { RunningService } from '../scripts/localServices';
import { startHttpsReceiver } from '../test/support/httpsReceiver';
import { profileStoreCommands } from './storeProfile';
import { createWorker } from '../worker/createWorker';
import { rootCertificates } from 'node:tls';
import { readFileSync } from 'node:fs';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 100);
const TENANTS = 8;
const counts = { requested: 1, delivered: 1, not_found: 0, failed: 0, reused: 0, cancelled: 0, pending: 0 };

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const ms = (n: number) => `${n.toFixed(1)} ms`;

async function main(): Promise<void> {
  logger.level = 'silent';
  const dir = mkdtempSync(join(tmpdir(), 'bench-webhooks-'));
  const stack = await startLocalStack({
    dir,
    mongodbUri: process.env.MONGODB_URI || undefined,
    temporalAddress: process.env.TEMPORAL_ADDRESS || undefined,
    log: (m) => process.stderr.write(`[services] ${m}\n`),
  });
  const services: RunningService[] = stack.services;
  const mongo = process.env.MONGODB_URI || `${stack.storeBase}/bench_webhooks`;
  const temporal = stack.temporalAddress;
  const receiver = await startHttpsReceiver();
  const config = loadConfig({
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    MONGODB_URI: mongo,
    TEMPORAL_ADDRESS: temporal,
    TEMPORAL_TASK_QUEUE: `bench-webhooks-${Date.now()}`,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOK_EXTRA_CA_FILE: receiver.caFile,
  });
  setConfig(config);
  await connectStore(config.mongodbUri);
  await ensureIndexes();
  const storeProfile = process.env.BENCH_PROFILE ? await profileStoreCommands(config.mongodbUri) : undefined;
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
  const { worker, connection } = await createWorker(config);
  const running = worker.run();

  const tenants: Array<{ orgId: string; workspaceId: string }> = [];
  for (let i = 0; i < TENANTS; i++) {
    const org = await createOrganization(`bench ${i}`, 0);
    await registerEndpoint({ orgId: org.org_id, workspaceId: org.workspace_id }, `${receiver.url}/bench/${i}`, {
      lookupAll: destinationLookup(), allowedCidrs: config.webhooks.allowedCidrs, secretsKey: config.secretsKey,
    });
    tenants.push({ orgId: org.org_id, workspaceId: org.workspace_id });
  }

  const firstPost = new Map<string, number>();
  receiver.onRequest = (r) => {
    const id = String(r.headers['webhook-id']);
    if (!firstPost.has(id)) firstPost.set(id, performance.now());
  };
  const waitDelivered = async (ids: string[], timeoutMs: number) => {
    const deadline = performance.now() + timeoutMs;
    while (ids.some((id) => !firstPost.has(id))) {
      if (performance.now() > deadline) throw new Error(`${ids.filter((id) => !firstPost.has(id)).length} events not delivered in time`);
      await new Promise((r) => setTimeout(r, 5));
    }
  };
  let seq = 0;
  const emitOne = async (): Promise<{ id: string; at: number }> => {
    const n = seq++;
    const t = tenants[n % tenants.length];
    const at = performance.now();
    const { eventId } = await emitJobCompleted({
      ...t, jobId: `job_bench${Date.now().toString(36)}${n}`, status: 'completed', counts,
      resultExpiresAt: new Date(Date.now() + 7 * 86400_000), completedAt: new Date(),
    });
    return { id: eventId, at };
  };

  // Warm-up: connections, workflow cache, indexes.
  const warm = await Promise.all(Array.from({ length: 20 }, emitOne));
  await waitDelivered(warm.map((w) => w.id), 60_000);

  // Phase 1: unloaded latency, one event at a time.
  const single: number[] = [];
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    const e = await emitOne();
    await waitDelivered([e.id], 30_000);
    single.push(firstPost.get(e.id)! - e.at);
  }
  single.sort((a, b) => a - b);

  // Phase 2: throughput, EVENTS emitted CONCURRENCY at a time.
  const emitted: Array<{ id: string; at: number }> = [];
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) {
        next += 1;
        emitted.push(await emitOne());
      }
    }),
  );
  const emittedIn = performance.now() - started;
  await waitDelivered(emitted.map((e) => e.id), 300_000);
  const deliveredIn = Math.max(...emitted.map((e) => firstPost.get(e.id)!)) - started;
  const loaded = emitted.map((e) => firstPost.get(e.id)! - e.at).sort((a, b) => a - b);

  // Ceiling: signed HTTPS POSTs straight from a loop, same receiver, same sender.
  const ca = [...rootCertificates, readFileSync(receiver.caFile, 'utf8')];
  const body = JSON.stringify({ type: 'job.completed', id: 'evt_ceiling', data: { counts } });
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  let sent = 0;
  let ok = 0;
  const ceilingStart = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (sent < EVENTS) {
        sent += 1;
        const out = await sendAttempt(
          { url: `${receiver.url}/ceiling`, headers: { ...signedHeaders([secret], 'evt_ceiling', new Date(), body) }, body },
          { lookupAll: destinationLookup(), allowedCidrs: config.webhooks.allowedCidrs, ca },
        );
        if (out.ok) ok += 1;
      }
    }),
  );
  const ceilingIn = performance.now() - ceilingStart;

  // Ceiling of the Temporal server itself: bare workflow starts (same search attributes) on a
  // task queue no worker polls. Every delivery needs one start before its first POST, so no
  // delivery rate can exceed this on the same server.
  const client = await temporalClient(config);
  let started2 = 0;
  const startsBegin = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (started2 < EVENTS) {
        const n = started2++;
        await client.workflow.start('webhookDelivery', {
          taskQueue: `${config.temporal.taskQueue}-unpolled`,
          workflowId: `bench-start-ceiling-${Date.now()}-${n}`,
          args: [],
          workflowExecutionTimeout: '10 seconds',
          typedSearchAttributes: [
            { key: SA.orgId, value: 'org_bench' }, { key: SA.workspaceId, value: 'ws_bench' }, { key: SA.endpointId, value: 'we_bench' },
            { key: SA.jobId, value: `job_bench${n}` }, { key: SA.deliveryStatus, value: 'delivering' },
          ],
        });
      }
    }),
  );
  const startsIn = performance.now() - startsBegin;

  // Ceiling of one workflow per event on this server and worker: the workflow of a delivery
  // that succeeds at once (eager start with the same search attributes, one local activity, the
  // status upsert, completion), with an activity that does no store or network work.
  const touched = new Map<string, number>();
  const probeQueue = `${config.temporal.taskQueue}-probe`;
  const probe = await Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: probeQueue,
    workflowsPath: require.resolve('./ceilingWorkflow'),
    activities: { touch: async (id: string) => void touched.set(id, performance.now()) },
    maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTasks,
    maxConcurrentLocalActivityExecutions: config.worker.maxConcurrentLocalActivities,
  });
  const probeRunning = probe.run();
  const probeClient = new Client({ connection, namespace: config.temporal.namespace });
  const probeOne = async (n: number) => {
    const id = `bench-probe-${Date.now()}-${n}`;
    await probeClient.workflow.start('deliveryCeilingProbe', {
      taskQueue: probeQueue, workflowId: id, args: [id], requestEagerStart: true,
      typedSearchAttributes: [
        { key: SA.orgId, value: 'org_bench' }, { key: SA.workspaceId, value: 'ws_bench' }, { key: SA.endpointId, value: 'we_bench' },
        { key: SA.jobId, value: `job_bench${n}` }, { key: SA.deliveryStatus, value: 'delivering' },
      ],
    });
    return id;
  };
  await Promise.all(Array.from({ length: 20 }, (_, i) => probeOne(-1 - i))); // warm-up: bundle, cache
  while (touched.size < 20) await new Promise((r) => setTimeout(r, 5));
  const probeIds: string[] = [];
  let probed = 0;
  const probeBegin = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (probed < EVENTS) probeIds.push(await probeOne(probed++));
    }),
  );
  while (probeIds.some((id) => !touched.has(id))) await new Promise((r) => setTimeout(r, 5));
  const probeIn = Math.max(...probeIds.map((id) => touched.get(id)!)) - probeBegin;
  probe.shutdown();
  await probeRunning;

  const report = {
    events: EVENTS,
    concurrency: CONCURRENCY,
    unloaded_emission_to_first_post: { n: single.length, p50: ms(percentile(single, 50)), p95: ms(percentile(single, 95)), max: ms(single[single.length - 1]) },
    loaded_emission_to_first_post: { p50: ms(percentile(loaded, 50)), p95: ms(percentile(loaded, 95)), max: ms(loaded[loaded.length - 1]) },
    emissions_per_s: +(EVENTS / (emittedIn / 1000)).toFixed(1),
    deliveries_per_s: +(EVENTS / (deliveredIn / 1000)).toFixed(1),
    ceiling_signed_posts_per_s: +(ok / (ceilingIn / 1000)).toFixed(1),
    ceiling_ok: ok,
    ceiling_temporal_workflow_starts_per_s: +(EVENTS / (startsIn / 1000)).toFixed(1),
    ceiling_one_workflow_per_event_per_s: +(EVENTS / (probeIn / 1000)).toFixed(1),
    targets: { p50_ms: 100, deliveries_per_s: 200 },
    p50_target_met: percentile(single, 50) <= 100,
    deliveries_target_met: EVENTS / (deliveredIn / 1000) >= 200,
    deliveries_share_of_one_workflow_per_event_ceiling: +(probeIn / deliveredIn).toFixed(2),
  };
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  storeProfile?.print((line) => process.stdout.write(line));

  worker.shutdown();
  await running;
  await connection.close();
  await closeTemporalClient();
  closeAttemptAgents();
  await receiver.close();
  await disconnectStore();
  for (const s of services) await s.stop();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
