import { Runtime, DefaultLogger, makeTelemetryFilterString } from '@temporalio/worker';
import { loadConfig } from '../core/config';
import { createLogger } from '../core/observability/logger';
import { createDeps } from '../core/deps';
import { openStore } from '../core/store/connection';
import { emitJobCompleted } from '../core/webhooks/jobCompletedEvent';
import { createWorker } from '../worker/createWorker';
import { probeCeiling } from './ceilingProbe';
import { epochNow, type EmittedEvent, type Tenant, type WorkerCommand, type WorkerMessage } from './webhookBenchProcesses';

/**
 * One worker process of the sustained phase of bench/webhooks.ts, configured from the
 * environment like worker/main.ts (with the bundles the parent built). Events are emitted here,
 * as a finishing job would emit them on the worker that ran it, so their delivery workflows start
 * eagerly on this worker. The parent sends commands; each answer carries wall-clock times.
 */
const send = (m: WorkerMessage) => process.send!(m);
const counts = { requested: 1, delivered: 1, not_found: 0, failed: 0, reused: 0, cancelled: 0, pending: 0 };

async function main(): Promise<void> {
  const config = loadConfig();
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
  const deps = createDeps(config, { logger: createLogger({ level: 'silent' }), store: await openStore(config.mongodbUri, config.store) });
  const { worker, connection } = await createWorker(deps, { workflowBundlePath: process.env.BENCH_WORKFLOW_BUNDLE });
  const running = worker.run();

  let seq = 0;
  const emitOne = async (tenants: Tenant[]): Promise<EmittedEvent> => {
    const n = seq++;
    const t = tenants[n % tenants.length];
    const at = epochNow();
    const { eventId } = await emitJobCompleted(
      config,
      {
        ...t,
        jobId: `job_bench${process.pid.toString(36)}${Date.now().toString(36)}${n}`,
        status: 'completed',
        counts,
        resultExpiresAt: new Date(Date.now() + 7 * 86400_000),
        completedAt: new Date(),
      },
      { temporal: deps.temporal, now: deps.now, stores: deps.stores },
    );
    return { id: eventId, at };
  };

  const handle = async (cmd: WorkerCommand): Promise<void> => {
    if (cmd.type === 'probe') {
      const r = await probeCeiling(connection, config, { count: cmd.count, concurrency: cmd.concurrency, workflowBundlePath: process.env.BENCH_PROBE_BUNDLE });
      send({ type: 'probed', ...r });
    } else if (cmd.type === 'burst') {
      const events: EmittedEvent[] = [];
      let next = 0;
      await Promise.all(
        Array.from({ length: cmd.concurrency }, async () => {
          while (next < cmd.count) {
            next += 1;
            events.push(await emitOne(cmd.tenants));
          }
        }),
      );
      send({ type: 'emitted', events, failures: 0, lagMaxMs: 0 });
    } else if (cmd.type === 'steady') {
      // Open loop: the emission schedule never waits for an earlier emission to finish.
      const total = Math.floor((cmd.ratePerS * cmd.durationMs) / 1000);
      const interval = 1000 / cmd.ratePerS;
      const events: EmittedEvent[] = [];
      const inFlight: Array<Promise<void>> = [];
      let failures = 0;
      let firstError: string | undefined;
      let lagMaxMs = 0;
      for (let i = 0; i < total; i++) {
        const due = cmd.startAt + i * interval;
        const wait = due - epochNow();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        lagMaxMs = Math.max(lagMaxMs, epochNow() - due);
        inFlight.push(
          emitOne(cmd.tenants).then(
            (e) => void events.push(e),
            (err: Error) => {
              failures += 1;
              firstError ??= err.message;
            },
          ),
        );
      }
      await Promise.all(inFlight);
      send({ type: 'emitted', events, failures, lagMaxMs, firstError });
    } else if (cmd.type === 'stop') {
      worker.shutdown();
      await running;
      await connection.close();
      await deps.temporal.close();
      deps.outbound.close();
      process.exit(0);
    }
  };
  process.on('message', (cmd: WorkerCommand) => {
    handle(cmd).catch((err: Error) => {
      process.stderr.write(`worker process: ${cmd.type} failed: ${err.stack ?? err.message}\n`);
      process.exit(1);
    });
  });
  send({ type: 'ready' });
}

// Never outlive the benchmark that started this process.
process.on('disconnect', () => process.exit(1));

main().catch((err) => {
  process.stderr.write(`worker process failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
