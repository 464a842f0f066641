import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { Pool } from 'undici';

/**
 * The load generator of the benchmarks, run in its own process so the process under test pays
 * nothing for the load it receives (`npx tsx bench/loadGenerator.ts '<plan JSON>'`, or through
 * `runLoad` in bench/loadRun.ts). It prints one JSON line: the measured figures.
 *
 * - `closed`: autocannon, N connections each sending its next request when the previous one
 *   answered (capacity).
 * - `open`: a fixed schedule (open loop): request n is sent at start + n / rate whether or not
 *   earlier ones answered, to target n mod T, so every target gets rate / T requests a second,
 *   evenly spaced. Latency counts from the scheduled time (no coordinated omission). autocannon's
 *   own rate option sends a connection's whole second at once and waits for each answer, which
 *   is neither even nor open, so this mode schedules its own requests with undici on keep-alive
 *   connections (a pool per target: a late answer opens another connection instead of delaying
 *   the next send).
 */
export interface LoadTarget {
  url: string;
  method?: string;
  headers?: Record<string, string>;
  /** Request body; in open loop every `$REQ` in it and in header values becomes a per-request number (idempotency keys). */
  body?: string;
}

const PER_REQUEST = /\$REQ/g;

export type LoadPlan =
  | { mode: 'closed'; target: LoadTarget; connections: number; seconds: number }
  | {
      mode: 'open';
      targets: LoadTarget[];
      ratePerSecond: number;
      seconds: number;
      /**
       * Seconds of the same load sent first and left out of the figures: every target's caches and
       * connections are then as they are under steady load, not cold at once (no user's traffic
       * starts for every tenant in the same millisecond).
       */
      leadInSeconds?: number;
      /** Also report the measured seconds cut in parts of this many seconds (by when each request was due): a cold start's first seconds beside the next. */
      segmentSeconds?: number;
    };

/** One part of an open-loop run (`segmentSeconds`): requests due in [fromSecond, toSecond) of the measured seconds. */
export interface LoadSegment {
  fromSecond: number;
  toSecond: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  errors: number;
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  /** Open loop only (autocannon reports no 95th percentile). */
  p95Ms?: number;
  p99Ms: number;
  maxMs: number;
  non2xx: number;
  errors: number;
  /** Status codes other than 2xx and how many of each. */
  statuses: Record<string, number>;
  /**
   * Open loop only: non-2xx answers by status and the problem document's `limit` (or `type`), such
   * as `429 max_concurrency`: which limit refused, not only that one did.
   */
  refusedBy?: Record<string, number>;
  /** CPU seconds the generator itself spent. */
  generatorCpuSeconds: number;
  /** Requests sent during the lead-in (open loop), answered or not: CPU figures count them too. */
  leadInRequests?: number;
  /** Open loop with `segmentSeconds` only. */
  segments?: LoadSegment[];
}

const REQUEST_TIMEOUT_MS = 5000;

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

async function closedLoop(plan: Extract<LoadPlan, { mode: 'closed' }>): Promise<Omit<LoadResult, 'generatorCpuSeconds'>> {
  const r = await autocannon({
    url: plan.target.url,
    method: (plan.target.method ?? 'GET') as 'GET',
    headers: plan.target.headers,
    body: plan.target.body,
    connections: plan.connections,
    duration: plan.seconds,
    pipelining: 1,
    timeout: REQUEST_TIMEOUT_MS / 1000,
  });
  const statuses: Record<string, number> = {};
  for (const [code, v] of Object.entries((r as unknown as { statusCodeStats?: Record<string, { count: number }> }).statusCodeStats ?? {})) {
    if (!code.startsWith('2')) statuses[code] = v.count;
  }
  return {
    requests: r.requests.total,
    requestsPerSecond: r.requests.total / plan.seconds,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    maxMs: r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    statuses,
  };
}

/** The problem document's `limit` extension, else its `type`; undefined for a body that is not one. */
async function refusalReason(body: { text(): Promise<string> }): Promise<string | undefined> {
  try {
    const doc = JSON.parse(await body.text()) as { limit?: unknown; type?: unknown };
    const reason = doc.limit ?? doc.type;
    return typeof reason === 'string' ? reason : undefined;
  } catch {
    return undefined;
  }
}

/** Requests the generator sends itself before its schedule starts (see warmGenerator). */
const GENERATOR_WARM_REQUESTS = 2_000;
const GENERATOR_WARM_CONNECTIONS = 10;

/**
 * Sends requests shaped like the plan's first target to a server inside this process, before the
 * schedule starts. A fresh generator's first requests otherwise pay for its own start: undici
 * compiles its HTTP parser (WebAssembly) on the first connection and V8 compiles the send path, so
 * the first schedule's requests go out late, in bursts, and their latency (counted from when
 * they were due) is the generator's. The service under test receives nothing from this.
 */
async function warmGenerator(like: LoadTarget): Promise<void> {
  const answer = JSON.stringify({ warm: true, padding: 'x'.repeat(200) });
  const server = createServer((req, res) => {
    req.resume();
    req.once('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, { pipelining: 1 });
  let sent = 0;
  const connection = async () => {
    while (sent++ < GENERATOR_WARM_REQUESTS) {
      const res = await pool.request({ path: '/warm', method: (like.method ?? 'GET') as 'GET', headers: like.headers, body: like.body });
      await res.body.dump();
    }
  };
  try {
    await Promise.all(Array.from({ length: GENERATOR_WARM_CONNECTIONS }, connection));
  } finally {
    await pool.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function openLoop(plan: Extract<LoadPlan, { mode: 'open' }>): Promise<Omit<LoadResult, 'generatorCpuSeconds'>> {
  // undici rather than node:http: about 15 % less of the generator's CPU per request at 1,000
  // req/s (0.32-0.36 ms against 0.38-0.45 ms), and the generator shares the machine with what it
  // measures.
  const pools = plan.targets.map((t) => new Pool(new URL(t.url).origin, { pipelining: 1, keepAliveTimeout: 60_000 }));
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const refusedBy: Record<string, number> = {};
  let non2xx = 0;
  let errors = 0;
  const pending = new Set<Promise<void>>();
  const leadIn = Math.round(plan.ratePerSecond * (plan.leadInSeconds ?? 0));
  const total = leadIn + Math.round(plan.ratePerSecond * plan.seconds);
  const intervalMs = 1000 / plan.ratePerSecond;
  const start = performance.now();
  const perSegment = plan.segmentSeconds ? Math.round(plan.ratePerSecond * plan.segmentSeconds) : 0;
  const segments = perSegment
    ? Array.from({ length: Math.ceil((total - leadIn) / perSegment) }, (_, k) => ({ k, latencies: [] as number[], non2xx: 0, errors: 0 }))
    : [];
  const paths = plan.targets.map((t) => {
    const u = new URL(t.url);
    return u.pathname + u.search;
  });

  const send = (n: number, due: number) => {
    const measured = n >= leadIn;
    const i = n % plan.targets.length;
    const t = plan.targets[i];
    const tag = `${process.pid}-${n}`;
    const headers = Object.fromEntries(Object.entries(t.headers ?? {}).map(([k, v]) => [k, v.replace(PER_REQUEST, tag)]));
    const body = t.body?.replace(PER_REQUEST, tag);
    const segment = measured && perSegment ? segments[Math.floor((n - leadIn) / perSegment)] : undefined;
    const p = pools[i]
      .request({
        path: paths[i],
        method: (t.method ?? 'GET') as 'GET',
        headers,
        body,
        // An answer later than this counts as an error: a saturated service must not stretch the run without end.
        headersTimeout: REQUEST_TIMEOUT_MS,
        bodyTimeout: REQUEST_TIMEOUT_MS,
      })
      .then(async (res) => {
        const refused = res.statusCode < 200 || res.statusCode >= 300;
        const reason = refused && measured ? await refusalReason(res.body) : undefined;
        if (!refused || !measured) await res.body.dump();
        if (!measured) return;
        const took = performance.now() - due;
        latencies.push(took);
        segment?.latencies.push(took);
        if (res.statusCode < 200 || res.statusCode >= 300) {
          non2xx++;
          if (segment) segment.non2xx++;
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          const by = `${res.statusCode}${reason ? ` ${reason}` : ''}`;
          refusedBy[by] = (refusedBy[by] ?? 0) + 1;
        }
      })
      .catch(() => {
        if (!measured) return;
        errors++;
        if (segment) segment.errors++;
      });
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };

  for (let n = 0; n < total;) {
    const now = performance.now();
    // Send everything that is due; a late timer sends its backlog at once (the schedule, not the timer, sets the load).
    while (n < total && start + n * intervalMs <= now) {
      send(n, start + n * intervalMs);
      n++;
    }
    if (n < total) await new Promise((r) => setTimeout(r, Math.max(0, start + n * intervalMs - performance.now())));
  }
  const elapsed = performance.now() - start - leadIn * intervalMs;
  while (pending.size) await Promise.all([...pending]);
  await Promise.all(pools.map((pool) => pool.destroy()));
  const sorted = latencies.sort((a, b) => a - b);
  return {
    requests: sorted.length,
    leadInRequests: leadIn,
    requestsPerSecond: sorted.length / (elapsed / 1000),
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1] ?? NaN,
    non2xx,
    errors,
    statuses,
    refusedBy,
    ...(perSegment
      ? {
          segments: segments.map((g): LoadSegment => {
            const l = g.latencies.sort((a, b) => a - b);
            return {
              fromSecond: g.k * plan.segmentSeconds!,
              toSecond: Math.min(plan.seconds, (g.k + 1) * plan.segmentSeconds!),
              requests: l.length,
              p50Ms: percentile(l, 50),
              p99Ms: percentile(l, 99),
              maxMs: l[l.length - 1] ?? NaN,
              non2xx: g.non2xx,
              errors: g.errors,
            };
          }),
        }
      : {}),
  };
}

/** `onSending` is called when the schedule starts: after the generator warmed itself, before its first request. */
export async function generateLoad(plan: LoadPlan, onSending: () => void = () => undefined): Promise<LoadResult> {
  if (plan.mode === 'open') await warmGenerator(plan.targets[0]);
  onSending();
  const cpu0 = process.cpuUsage();
  const r = plan.mode === 'closed' ? await closedLoop(plan) : await openLoop(plan);
  const cpu = process.cpuUsage(cpu0);
  return { ...r, generatorCpuSeconds: (cpu.user + cpu.system) / 1e6 };
}

/** The line the generator prints as it starts sending, before its result line (`runLoad`'s `onSending`). */
export const SENDING_LINE = 'sending';

if (require.main === module) {
  const plan = JSON.parse(process.argv[2] ?? '') as LoadPlan;
  generateLoad(plan, () => process.stdout.write(`${SENDING_LINE}\n`)).then(
    (r) => {
      process.stdout.write(JSON.stringify(r) + '\n');
      process.exit(0);
    },
    (err: Error) => {
      process.stderr.write(`load generator failed: ${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
}
