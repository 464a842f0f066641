import type { ApiClient } from './apiClient';
import type { ChaosServices } from './services';
import type { ChaosTenant } from './tenants';

/**
 * The faults, injected one after another while the load runs, repeating until the load phase
 * ends: SIGKILL the worker while a job runs, SIGKILL it while a webhook POST is in flight, run
 * two workers and SIGKILL one, SIGKILL the store (probing the API while it is down and until it
 * recovers by itself), restart the Temporal server on its database file.
 */
export interface OutageProbe {
  status: number;
  code?: string;
  retryAfter: string | null;
  ms: number;
}

export interface StoreOutage {
  probes: OutageProbe[];
  /** Milliseconds from the store's restart until the API answered a request normally again; null if it never did. */
  recoveredAfterMs: number | null;
}

export interface FaultLog {
  events: Array<{ at: number; what: string }>;
  outages: StoreOutage[];
  counts: Record<string, number>;
}

export interface FaultContext {
  services: ChaosServices;
  api: ApiClient;
  probeTenant: ChaosTenant;
  /** Resolves when a webhook POST arrives at the receiver (a delivery in flight). */
  nextDelivery: (timeoutMs: number) => Promise<boolean>;
  /** Whether a job is running now (read from the store). */
  jobRunning: () => Promise<boolean>;
  deadline: number;
  say: (m: string) => void;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runFaults(ctx: FaultContext): Promise<FaultLog> {
  const log: FaultLog = { events: [], outages: [], counts: {} };
  const note = (what: string) => {
    log.events.push({ at: Date.now(), what });
    log.counts[what] = (log.counts[what] ?? 0) + 1;
    ctx.say(`fault: ${what}`);
  };
  const { services } = ctx;
  const left = () => ctx.deadline - Date.now();

  const steps: Array<() => Promise<void>> = [
    async () => {
      const w = await services.ensureWorker();
      const until = Date.now() + 20_000;
      while (Date.now() < until && !(await ctx.jobRunning().catch(() => false))) await sleep(250);
      await services.killWorker(w);
      note('SIGKILL worker mid-job');
      await services.ensureWorker();
    },
    async () => {
      await services.killStore();
      note('store SIGKILL');
      const probes: OutageProbe[] = [];
      // The API's read cache (READ_CACHE_MS) may answer the first request; probe for a few seconds.
      for (let i = 0; i < 4; i++) {
        const r = await ctx.api.call(
          ctx.probeTenant.orgId,
          ctx.probeTenant.key,
          'outage probe',
          'GET',
          '/v1/contact-retrieval-jobs?limit=1',
          undefined,
          15_000,
        );
        probes.push({ status: r.status, code: r.json?.code, retryAfter: r.headers.get('retry-after'), ms: r.ms });
        await sleep(500);
      }
      await services.startStore();
      const back = Date.now();
      let recoveredAfterMs: number | null = null;
      while (Date.now() - back < 60_000) {
        const r = await ctx.api.call(
          ctx.probeTenant.orgId,
          ctx.probeTenant.key,
          'recovery probe',
          'GET',
          '/v1/contact-retrieval-jobs?limit=1',
          undefined,
          15_000,
        );
        if (r.status === 200) {
          recoveredAfterMs = Date.now() - back;
          break;
        }
        await sleep(500);
      }
      log.outages.push({ probes, recoveredAfterMs });
      note('store restarted');
    },
    async () => {
      const w = await services.ensureWorker();
      if (await ctx.nextDelivery(20_000)) {
        await services.killWorker(w);
        note('SIGKILL worker mid-delivery');
      } else {
        await services.killWorker(w);
        note('SIGKILL worker (no delivery in flight within 20 s)');
      }
      await services.ensureWorker();
    },
    async () => {
      await services.restartTemporal();
      note('Temporal server restarted');
    },
    async () => {
      const first = await services.ensureWorker();
      const second = services.startWorker();
      await second.ready;
      await sleep(3000);
      await services.killWorker(first);
      note('two workers, SIGKILL one');
    },
  ];

  for (let i = 0; left() > 15_000; i = (i + 1) % steps.length) {
    try {
      await steps[i]();
    } catch (err) {
      note(`fault step failed: ${(err as Error).message}`);
    }
    await sleep(Math.min(5000, Math.max(0, left())));
  }
  return log;
}
