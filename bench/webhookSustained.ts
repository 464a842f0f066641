import type { ChildProcess } from 'node:child_process';
import { cpuPerThousand, processCpuSeconds } from './processCpu';
import {
  forkBenchProcess,
  nextMessage,
  epochNow,
  type EmittedEvent,
  type ReceiverMessage,
  type Tenant,
  type WorkerCommand,
  type WorkerMessage,
} from './webhookBenchProcesses';

/**
 * The sustained phase of bench/webhooks.ts with N worker processes on one task queue:
 * 1. the one-workflow-per-event ceiling (bench/ceilingProbe.ts, split over the workers);
 * 2. saturation: events emitted closed-loop as fast as the workers take them, whose delivery rate
 *    is compared with the ceiling (target ≥ 0.9 of it);
 * 3. steady load: 80 % of the ceiling offered open-loop for BENCH_SUSTAINED_S seconds, with the
 *    emission-to-first-POST latency (target p95 ≤ 1 s) and the delivery rate;
 * and every event of 2 and 3 delivered exactly once (the receiver counts by webhook-id).
 */
export interface SustainedOptions {
  workers: number;
  /** Environment of a worker process (config, bundles) without the task queue. */
  workerEnv: NodeJS.ProcessEnv;
  taskQueue: string;
  tenants: Tenant[];
  firstPost: Map<string, number>;
  receiverCounts: () => Promise<Extract<ReceiverMessage, { type: 'counts' }>>;
  probeEvents: number;
  saturationEvents: number;
  concurrency: number;
  offeredShare: number;
  durationMs: number;
  /** Processes outside this phase whose CPU time is reported (Temporal, the store, the receiver). */
  processes: Record<string, number | undefined>;
  log: (line: string) => void;
}

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const round = (n: number, digits = 1) => +n.toFixed(digits);

function split(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

async function allDelivered(firstPost: Map<string, number>, ids: string[], timeoutMs: number): Promise<string[]> {
  const deadline = epochNow() + timeoutMs;
  for (;;) {
    const missing = ids.filter((id) => !firstPost.has(id));
    if (!missing.length || epochNow() > deadline) return missing;
    await new Promise((r) => setTimeout(r, 20));
  }
}

function latencies(events: EmittedEvent[], firstPost: Map<string, number>) {
  const l = events
    .filter((e) => firstPost.has(e.id))
    .map((e) => firstPost.get(e.id)! - e.at)
    .sort((a, b) => a - b);
  return { n: l.length, p50_ms: round(percentile(l, 50)), p95_ms: round(percentile(l, 95)), max_ms: round(l[l.length - 1] ?? NaN) };
}

export async function runSustained(o: SustainedOptions): Promise<Record<string, unknown>> {
  const children: ChildProcess[] = [];
  const command = (c: ChildProcess, cmd: WorkerCommand) => c.send(cmd);
  try {
    for (let i = 0; i < o.workers; i++)
      children.push(
        forkBenchProcess('webhookWorkerProcess.ts', { ...o.workerEnv, TEMPORAL_TASK_QUEUE: o.taskQueue }, { cpuProfileDir: process.env.BENCH_CPU_PROFILE_DIR }),
      );
    await Promise.all(children.map((c) => nextMessage<WorkerMessage, 'ready'>(c, 'ready', 180_000)));
    o.log(`${o.workers} worker process(es) ready`);

    // 1. Ceiling: every worker probes its share at once.
    const probeCounts = split(o.probeEvents, o.workers);
    const concurrencies = split(o.concurrency, o.workers);
    const probed = await Promise.all(
      children.map((c, i) => {
        const m = nextMessage<WorkerMessage, 'probed'>(c, 'probed');
        command(c, { type: 'probe', count: probeCounts[i], concurrency: concurrencies[i] });
        return m;
      }),
    );
    const probeSpanMs = Math.max(...probed.map((p) => p.lastTouch)) - Math.min(...probed.map((p) => p.begin));
    const ceiling = o.probeEvents / (probeSpanMs / 1000);
    o.log(`ceiling ${ceiling.toFixed(1)} workflows/s`);

    const cpu = () => ({
      ...Object.fromEntries(Object.entries(o.processes).map(([name, pid]) => [name, processCpuSeconds(pid) ?? NaN])),
      ...Object.fromEntries(children.map((c, i) => [`worker${i + 1}`, processCpuSeconds(c.pid) ?? NaN])),
    });

    // 2. Saturation: closed loop, as fast as the emitters and workers go.
    const satCpu = cpu();
    const satCounts = split(o.saturationEvents, o.workers);
    const satBegin = epochNow();
    const satEmitted = (
      await Promise.all(
        children.map((c, i) => {
          const m = nextMessage<WorkerMessage, 'emitted'>(c, 'emitted');
          command(c, { type: 'burst', tenants: o.tenants, count: satCounts[i], concurrency: concurrencies[i] });
          return m;
        }),
      )
    ).flatMap((m) => m.events);
    const satMissing = await allDelivered(
      o.firstPost,
      satEmitted.map((e) => e.id),
      300_000,
    );
    const satSpanMs = Math.max(...satEmitted.filter((e) => o.firstPost.has(e.id)).map((e) => o.firstPost.get(e.id)!)) - satBegin;
    const saturationRate = (satEmitted.length - satMissing.length) / (satSpanMs / 1000);
    o.log(`saturation ${saturationRate.toFixed(1)} deliveries/s`);
    const satCpuPerThousand = cpuPerThousand(satCpu, cpu(), satEmitted.length);

    // 3. Steady open-loop load at a share of the ceiling; each worker emits its part, interleaved.
    const rate = ceiling * o.offeredShare;
    const steadyCpu = cpu();
    const startAt = epochNow() + 1000;
    const steady = await Promise.all(
      children.map((c, i) => {
        const m = nextMessage<WorkerMessage, 'emitted'>(c, 'emitted', o.durationMs + 600_000);
        command(c, { type: 'steady', tenants: o.tenants, ratePerS: rate / o.workers, durationMs: o.durationMs, startAt: startAt + (i * 1000) / rate });
        return m;
      }),
    );
    const steadyEvents = steady.flatMap((m) => m.events);
    const steadyMissing = await allDelivered(
      o.firstPost,
      steadyEvents.map((e) => e.id),
      120_000,
    );
    const lastPost = Math.max(...steadyEvents.filter((e) => o.firstPost.has(e.id)).map((e) => o.firstPost.get(e.id)!));
    const steadyRate = (steadyEvents.length - steadyMissing.length) / ((lastPost - startAt) / 1000);
    const steadyLatency = latencies(steadyEvents, o.firstPost);
    const steadyCpuPerThousand = cpuPerThousand(steadyCpu, cpu(), steadyEvents.length);

    // Exactly once: every event of phases 2 and 3 reached the receiver, none of them twice.
    const counts = await o.receiverCounts();
    const ours = new Set([...satEmitted, ...steadyEvents].map((e) => e.id));
    const duplicated = counts.duplicated.filter(([id]) => ours.has(id));
    const emitFailures = steady.reduce((n, m) => n + m.failures, 0);
    const missing = satMissing.length + steadyMissing.length;
    const onceEach = missing === 0 && duplicated.length === 0 && emitFailures === 0;

    return {
      workers: o.workers,
      ceiling_one_workflow_per_event_per_s: round(ceiling),
      saturation: {
        events: satEmitted.length,
        deliveries_per_s: round(saturationRate),
        share_of_ceiling: round(saturationRate / ceiling, 2),
        emission_to_first_post: latencies(satEmitted, o.firstPost),
        cpu_s_per_1000_events: satCpuPerThousand,
      },
      steady: {
        offered_per_s: round(rate),
        offered_share_of_ceiling: o.offeredShare,
        seconds: o.durationMs / 1000,
        events: steadyEvents.length,
        emission_failures: emitFailures,
        ...(steady.find((m) => m.firstError) ? { first_emission_error: steady.find((m) => m.firstError)!.firstError } : {}),
        emitter_lag_max_ms: round(Math.max(...steady.map((m) => m.lagMaxMs))),
        emission_to_first_post: steadyLatency,
        deliveries_per_s: round(steadyRate),
        delivery_share_of_offered: round(steadyRate / rate, 2),
        delivery_share_of_ceiling: round(steadyRate / ceiling, 2),
        cpu_s_per_1000_events: steadyCpuPerThousand,
      },
      delivered_once: { events: ours.size, missing, duplicated: duplicated.length },
      targets: {
        'steady p95 emission to first POST <= 1000 ms': { value: steadyLatency.p95_ms, met: steadyLatency.p95_ms <= 1000 },
        'every event delivered exactly once': { value: `${missing} missing, ${duplicated.length} duplicated`, met: onceEach },
        'saturated delivery rate >= 0.9 of the ceiling': { value: round(saturationRate / ceiling, 2), met: saturationRate / ceiling >= 0.9 },
      },
    };
  } finally {
    await Promise.all(
      children.map(async (c) => {
        if (c.exitCode !== null || c.signalCode !== null) return;
        const exited = new Promise((r) => c.once('exit', r));
        command(c, { type: 'stop' });
        const timer = setTimeout(() => c.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }
}
