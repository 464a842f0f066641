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

/** Creates sent while the Temporal server was down, and what they got. */
export interface TemporalOutage {
  creates: Array<{ status: number; ms: number; jobId?: string }>;
  downMs: number;
}

/** The second API replica's kill: when, and the lease slots it held then (re-read after the TTL). */
export interface ReplicaKill {
  at: number;
  killedBase: string;
  leasesAtKill: Array<{ _id: string; token: string }>;
  /** Of those, held by the same token and unexpired one TTL after the kill. */
  stillHeldAfterTtl: number;
  ttlSeconds: number;
}

export interface FaultLog {
  events: Array<{ at: number; what: string }>;
  outages: StoreOutage[];
  counts: Record<string, number>;
  /** webhook-ids of POSTs in flight (held by a slow receiver) when their worker was SIGKILLed. */
  killedInFlight: string[];
  temporalOutages: TemporalOutage[];
  replicaKills: ReplicaKill[];
  /** Workers that ended themselves at CHAOS_EXIT_AT=after_charge. */
  exitsAfterCharge: number;
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
  /** The receiver holds the next webhook POST this long before answering; resolves with its webhook-id when it arrives. */
  holdNextDelivery: (holdMs: number, timeoutMs: number) => Promise<string | null>;
  /** Creates one small job for the probe tenant (during the Temporal outage). */
  createProbeJob: () => Promise<{ status: number; ms: number; jobId?: string }>;
  /** The lease slots held now (in-flight requests), and whether one is still held by the same token. */
  leaseSlots: () => Promise<Array<{ _id: string; token: string; exp: number }>>;
  startSecondApi: () => Promise<void>;
  leaseTtlSeconds: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runFaults(ctx: FaultContext): Promise<FaultLog> {
  const log: FaultLog = { events: [], outages: [], counts: {}, killedInFlight: [], temporalOutages: [], replicaKills: [], exitsAfterCharge: 0 };
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
    async () => {
      // A slow receiver: the POST is held 8 s, and the worker that sent it is killed meanwhile.
      const w = await services.ensureWorker();
      const id = await ctx.holdNextDelivery(8_000, 20_000);
      await services.killWorker(w);
      if (id) {
        log.killedInFlight.push(id);
        note('SIGKILL worker while a webhook POST is in flight (slow receiver)');
      } else note('SIGKILL worker (no delivery in flight within 20 s)');
      await services.ensureWorker();
    },
    async () => {
      // A worker that ends itself between a chunk's charge and its record.
      for (const w of [...services.workers]) await services.killWorker(w);
      const armed = services.startWorker({ CHAOS_EXIT_AT: 'after_charge' });
      await armed.ready;
      // Chunks of jobs whose worker was just killed come back after their heartbeat timeout: wait long enough for one.
      const ended = await Promise.race([armed.exited, sleep(60_000).then(() => null)]);
      if (ended === 'SIGKILL') {
        log.exitsAfterCharge += 1;
        note('worker ended between a charge and its record');
      } else {
        await services.killWorker(armed);
        note('armed worker saw no charge within 60 s');
      }
      await services.ensureWorker();
    },
    async () => {
      // Two API replicas behind the load; the second is SIGKILLed while it serves.
      await ctx.startSecondApi();
      await sleep(5_000);
      const killedBase = services.api2!.url;
      const leasesAtKill = (await ctx.leaseSlots()).map(({ _id, token }) => ({ _id, token }));
      await services.killSecondApi();
      const at = Date.now();
      note('second API replica SIGKILLed under load');
      await sleep(ctx.leaseTtlSeconds * 1000 + 1000);
      const now = await ctx.leaseSlots();
      const byId = new Map(now.map((l) => [l._id, l]));
      const stillHeldAfterTtl = leasesAtKill.filter((l) => {
        const cur = byId.get(l._id);
        return cur !== undefined && cur.token === l.token && cur.exp > Date.now();
      }).length;
      log.replicaKills.push({ at, killedBase, leasesAtKill, stillHeldAfterTtl, ttlSeconds: ctx.leaseTtlSeconds });
    },
    async () => {
      // Temporal down for 10 s while jobs are created.
      await services.killTemporal();
      const down = Date.now();
      note('Temporal server SIGKILLed');
      const creates: TemporalOutage['creates'] = [];
      while (Date.now() - down < 10_000) {
        creates.push(await ctx.createProbeJob());
        await sleep(1_000);
      }
      await services.startTemporal();
      log.temporalOutages.push({ creates, downMs: Date.now() - down });
      note('Temporal server back');
    },
  ];

  // The kills added last go first, so a shorter run still tries each of them once.
  const ordered = [...steps.slice(5), ...steps.slice(0, 5)];
  for (let i = 0; left() > 15_000; i = (i + 1) % ordered.length) {
    try {
      await ordered[i]();
    } catch (err) {
      note(`fault step failed: ${(err as Error).message}`);
    }
    await sleep(Math.min(5000, Math.max(0, left())));
  }
  return log;
}
