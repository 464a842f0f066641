/**
 * Webhook delivery benchmark: `job.completed` events emitted through `emitJobCompleted`,
 * delivered by real workers (Temporal dev server, FerretDB) to an HTTPS receiver in a process of
 * its own (bench/webhookReceiverProcess.ts), as a user's receiver would be.
 *
 *   npx tsx bench/webhooks.ts     (starts its own FerretDB and Temporal unless MONGODB_URI /
 *                                  TEMPORAL_ADDRESS are set)
 *
 * BENCH_PHASES (default `burst,sustained`) picks the phases:
 * - `burst`, on a worker in this process: BENCH_LATENCY_EVENTS (default 100) events emitted one
 *   after another for the unloaded emission-to-first-POST latency (target p50 ≤ 100 ms), then
 *   BENCH_EVENTS (default 1000) emitted BENCH_CONCURRENCY (default 32) at a time, then the
 *   ceilings below.
 * - `sustained` (bench/webhookSustained.ts), once per count in BENCH_WORKERS (default `1,2`) of
 *   worker processes on one task queue, each emitting its share of the events as a finishing job
 *   would: the one-workflow-per-event ceiling (BENCH_PROBE_EVENTS, default 600), the delivery
 *   rate at saturation (BENCH_SATURATION_EVENTS, default 600; target ≥ 0.9 of the ceiling), then
 *   BENCH_OFFERED_SHARE (default 0.8) of the ceiling offered open-loop for BENCH_SUSTAINED_S
 *   (default 60) seconds (target p95 from emission to first POST ≤ 1 s), every event delivered
 *   exactly once. WORKER_* settings are passed to the worker processes; BENCH_CPU_PROFILE_DIR
 *   writes a V8 CPU profile of each.
 *
 * Three ceilings, measured in the same run: signed HTTPS POSTs from a plain loop (the sender and
 * receiver), bare workflow starts (the Temporal server's start rate), and one workflow per
 * event doing nothing but a delivery's workflow steps (bench/ceilingWorkflow.ts): no delivery
 * workflow can beat the last on this server and worker.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';
import { Runtime, DefaultLogger, bundleWorkflowCode, makeTelemetryFilterString } from '@temporalio/worker';
import { loadConfig } from '../core/config';
import { createLogger } from '../core/observability/logger';
import { closeDeps, createDeps, type Deps } from '../core/deps';
import { openStore } from '../core/store/connection';
import { SA } from '../core/temporal/searchAttributes';
import { systemDestinationLookup } from '../core/outbound/destinationResolver';
import { emitJobCompleted } from '../core/webhooks/jobCompletedEvent';
import { sendAttempt } from '../core/webhooks/sendAttempt';
import { signedHeaders } from '../core/webhooks/signPayload';
import { registerEndpoint } from '../core/webhooks/webhookEndpoints';
import { createOrganization } from '../core/tenancy/provisioning';
import type { BenchFigure } from './benchResults';
import { runBench, startBenchStack, type BenchStops } from './benchStack';
import { probeCeiling } from './ceilingProbe';
import { openProfiledStore } from './storeProfile';
import { epochNow, forkBenchProcess, nextMessage, type ReceiverCommand, type ReceiverMessage } from './webhookBenchProcesses';
import { runSustained } from './webhookSustained';
import { createWorker } from '../worker/createWorker';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 100);
const PHASES = new Set((process.env.BENCH_PHASES ?? 'burst,sustained').split(','));
const WORKER_COUNTS = (process.env.BENCH_WORKERS ?? '1,2').split(',').map(Number);
const TENANTS = 8;
const counts = { requested: 1, delivered: 1, not_found: 0, failed: 0, reused: 0, cancelled: 0, pending: 0 };

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const ms = (n: number) => `${n.toFixed(1)} ms`;
const stderr = (line: string) => process.stderr.write(`[bench] ${line}\n`);

async function measure(dir: string, stops: BenchStops): Promise<BenchFigure[]> {
  const stack = await startBenchStack(dir, 'bench_webhooks', stops, (m) => process.stderr.write(`[services] ${m}\n`));
  const mongo = stack.mongodbUri;
  const temporal = stack.temporalAddress;

  // The receiver runs in its own process; it reports each event's first POST here.
  const receiverProcess = forkBenchProcess('webhookReceiverProcess.ts', {});
  const receiver = await nextMessage<ReceiverMessage, 'ready'>(receiverProcess, 'ready', 60_000);
  const firstPost = new Map<string, number>();
  receiverProcess.on('message', (m: ReceiverMessage) => {
    if (m.type === 'firstPosts') for (const [id, at] of m.posts) firstPost.set(id, at);
  });
  const receiverCounts = () => {
    const reply = nextMessage<ReceiverMessage, 'counts'>(receiverProcess, 'counts');
    receiverProcess.send({ type: 'counts' } satisfies ReceiverCommand);
    return reply;
  };

  const env = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'silent',
    MONGODB_URI: mongo,
    TEMPORAL_ADDRESS: temporal,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    WEBHOOK_ALLOWED_CIDRS: '127.0.0.0/8',
    WEBHOOK_EXTRA_CA_FILE: receiver.caFile,
  };
  const baseQueue = `bench-webhooks-${Date.now()}`;
  const config = loadConfig({ ...env, TEMPORAL_TASK_QUEUE: baseQueue });
  const { store, profile: storeProfile } = process.env.BENCH_PROFILE
    ? await openProfiledStore(config.mongodbUri)
    : { store: await openStore(config.mongodbUri, config.store), profile: undefined };
  const deps = createDeps(config, { logger: createLogger({ level: 'silent' }), store });
  await store.ensureIndexes();
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });

  const tenants: Array<{ orgId: string; workspaceId: string }> = [];
  for (let i = 0; i < TENANTS; i++) {
    const org = await createOrganization(deps.stores, `bench ${i}`, 0);
    await registerEndpoint(
      deps.stores,
      { orgId: org.org_id, workspaceId: org.workspace_id },
      `${receiver.url}/bench/${i}`,
      {
        lookupAll: systemDestinationLookup,
        allowedCidrs: config.webhooks.allowedCidrs,
        purposeKeys: deps.purposeKeys,
      },
      new Date(),
    );
    tenants.push({ orgId: org.org_id, workspaceId: org.workspace_id });
  }
  const report: Record<string, unknown> = {};
  if (PHASES.has('burst')) Object.assign(report, await burstPhase(deps, tenants, firstPost, receiver));

  if (PHASES.has('sustained')) {
    // Bundled once here: N worker processes bundling at once would take minutes on 2 cores.
    const bundle = async (workflowsPath: string, name: string) => {
      const { code } = await bundleWorkflowCode({ workflowsPath, logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } });
      const path = join(dir, name);
      writeFileSync(path, code);
      return path;
    };
    const workerEnv = {
      ...env,
      // Worker tuning to try (WORKER_MAX_CONCURRENT_WORKFLOW_TASKS …) reaches the worker processes.
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('WORKER_'))),
      BENCH_WORKFLOW_BUNDLE: await bundle(require.resolve('../workflows'), 'workflows.js'),
      BENCH_PROBE_BUNDLE: await bundle(require.resolve('./ceilingWorkflow'), 'probe.js'),
    };
    const sustained = [];
    for (const workers of WORKER_COUNTS) {
      stderr(`sustained phase with ${workers} worker process(es)`);
      sustained.push(
        await runSustained({
          workers,
          workerEnv,
          taskQueue: `${baseQueue}-w${workers}`,
          tenants,
          firstPost,
          receiverCounts,
          probeEvents: Number(process.env.BENCH_PROBE_EVENTS ?? 600),
          saturationEvents: Number(process.env.BENCH_SATURATION_EVENTS ?? 600),
          concurrency: CONCURRENCY,
          offeredShare: Number(process.env.BENCH_OFFERED_SHARE ?? 0.8),
          durationMs: Number(process.env.BENCH_SUSTAINED_S ?? 60) * 1000,
          processes: {
            temporal: stack.temporalPid,
            store: stack.storePid,
            receiver: receiverProcess.pid,
            bench: process.pid,
          },
          log: stderr,
        }),
      );
    }
    report.sustained = sustained;
  }
  process.stdout.write(JSON.stringify(report, null, 2) + '\n');
  storeProfile?.print((line) => process.stdout.write(line));

  const receiverExit = new Promise((r) => receiverProcess.once('exit', r));
  receiverProcess.send({ type: 'stop' } satisfies ReceiverCommand);
  await receiverExit;
  await closeDeps(deps);
  return reportFigures(report);
}

/** The report's figures, one row per number, verdict or timing (nested ones named by their path). */
function reportFigures(report: Record<string, unknown>, prefix = ''): BenchFigure[] {
  return Object.entries(report).flatMap(([k, v]): BenchFigure[] => {
    const name = prefix ? `${prefix} ${k}` : k;
    if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'string') return [{ measure: name, figure: String(v) }];
    if (v && typeof v === 'object') return reportFigures(v as Record<string, unknown>, name);
    return [];
  });
}

/**
 * The worker in this process: unloaded latency, a burst of EVENTS, and three ceilings (signed
 * POSTs from a loop, bare workflow starts, one workflow per event).
 */
async function burstPhase(
  deps: Deps,
  tenants: Array<{ orgId: string; workspaceId: string }>,
  firstPost: Map<string, number>,
  receiver: { url: string; caFile: string },
): Promise<Record<string, unknown>> {
  const { config } = deps;
  const { worker, connection } = await createWorker(deps);
  const running = worker.run();
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
    const at = epochNow();
    const { eventId } = await emitJobCompleted(
      config,
      {
        ...t,
        jobId: `job_bench${Date.now().toString(36)}${n}`,
        status: 'completed',
        counts,
        resultExpiresAt: new Date(Date.now() + 7 * 86400_000),
        completedAt: new Date(),
      },
      { temporal: deps.temporal, now: deps.now, stores: deps.stores },
    );
    return { id: eventId, at };
  };

  // Warm-up: connections, workflow cache, indexes.
  const warm = await Promise.all(Array.from({ length: 20 }, emitOne));
  await waitDelivered(
    warm.map((w) => w.id),
    60_000,
  );

  // Unloaded latency, one event at a time.
  const single: number[] = [];
  for (let i = 0; i < LATENCY_EVENTS; i++) {
    const e = await emitOne();
    await waitDelivered([e.id], 30_000);
    single.push(firstPost.get(e.id)! - e.at);
  }
  single.sort((a, b) => a - b);

  // Throughput, EVENTS emitted CONCURRENCY at a time.
  const emitted: Array<{ id: string; at: number }> = [];
  const started = epochNow();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < EVENTS) {
        next += 1;
        emitted.push(await emitOne());
      }
    }),
  );
  const emittedIn = epochNow() - started;
  await waitDelivered(
    emitted.map((e) => e.id),
    300_000,
  );
  const deliveredIn = Math.max(...emitted.map((e) => firstPost.get(e.id)!)) - started;
  const loaded = emitted.map((e) => firstPost.get(e.id)! - e.at).sort((a, b) => a - b);
  worker.shutdown();
  await running;

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
          { lookupAll: systemDestinationLookup, allowedCidrs: config.webhooks.allowedCidrs, ca, connections: deps.outbound },
        );
        if (out.ok) ok += 1;
      }
    }),
  );
  const ceilingIn = performance.now() - ceilingStart;

  // Ceiling of the Temporal server itself: bare workflow starts (same search attributes) on a
  // task queue no worker polls. Every delivery needs one start before its first POST, so no
  // delivery rate can exceed this on the same server.
  const client = await deps.temporal.client();
  let started2 = 0;
  const startsBegin = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (started2 < EVENTS) {
        const n = started2++;
        await client.connection.withDeadline(Date.now() + config.temporal.callTimeoutMs, () =>
          client.workflow.start('webhookDelivery', {
            taskQueue: `${config.temporal.taskQueue}-unpolled`,
            workflowId: `bench-start-ceiling-${Date.now()}-${n}`,
            args: [],
            workflowExecutionTimeout: '10 seconds',
            typedSearchAttributes: [
              { key: SA.orgId, value: 'org_bench' },
              { key: SA.workspaceId, value: 'ws_bench' },
              { key: SA.endpointId, value: 'we_bench' },
              { key: SA.jobId, value: `job_bench${n}` },
              { key: SA.deliveryStatus, value: 'delivering' },
            ],
          }),
        );
      }
    }),
  );
  const startsIn = performance.now() - startsBegin;

  // Ceiling of one workflow per event on this server and worker (bench/ceilingProbe.ts).
  const probe = await probeCeiling(connection, config, { count: EVENTS, concurrency: CONCURRENCY });
  const probeIn = probe.lastTouch - probe.begin;
  await connection.close();

  return {
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
}

runBench('webhooks', measure);
