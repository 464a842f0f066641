import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../core/config';
import { setOrganizationRate } from '../core/limits/limitSettings';
import { closeDeps, openDeps } from '../core/deps';
import type { BenchFigure } from './benchResults';
import { costsByArea, monotonicMicros, newestProfile, topCosts, type ProfileWindow, type TopCost } from './cpuProfileSummary';
import { profileStore } from './storeCpuProfile';
import { commandsPerThousand, storeCommandCounts } from './storeCommands';
import { benchOrganization, runBench, startBenchStack, type BenchStops } from './benchStack';
import { startApiProcess } from '../test/support/apiProcess';
import type { LoadPlan, LoadResult, LoadSegment, LoadTarget } from './loadGenerator';
import { runLoad } from './loadRun';
import { measureCpu, waitUntilQuiet } from './processCpu';
import { measureCounterCpu, quantile, seedYearOfUsage } from './usageBench';

/**
 * The request path measured from outside, as a user meets it: the API (`api/server.ts`) in its
 * own process, a bare Koa route (bench/bareRoute.ts) in its own process, and the load
 * generator (bench/loadGenerator.ts) in a third, driving both in the same run.
 *
 *   npx tsx bench/api.ts     (starts FerretDB and Temporal via scripts/localStack unless MONGODB_URI is set)
 *
 * Scenarios:
 * - cold: BENCH_ORGS organizations created while the API runs (it has never seen them), default
 *   limits, each request with its own organization's key, BENCH_RATE requests/s open loop, no
 *   warm-up: the first seconds a user meets. Target: p99 <= 25 ms over the first 10 s and over
 *   the next 10 s, no non-2xx. It runs first, before anything else warmed the API.
 * - common case: BENCH_ORGS (default 50) organizations at default limits, each request with its
 *   own organization's API key, BENCH_RATE (default 1,000) requests/s offered in total, open
 *   loop, evenly spread (20/s per organization: under every limit, so nothing should be refused).
 *   Target: p99 <= 25 ms and no non-2xx.
 * - capacity: one organization whose rate the operator raised (as `limit rate` does), closed
 *   loop, BENCH_CONNECTIONS (default 50) connections, GET /v1/whoami, against the bare route's
 *   capacity. Target: ratio >= 0.3, and the bare route must reach CEILING_REQUESTS_PER_SECOND
 *   driven by the same generator, or the ratio is the generator's and is not reported as met.
 * - usage: GET /v1/usage by the day over 90 days for organizations with a year of counter rows
 *   (bench/usageBench.ts: hour rows of 100 days, month rows of rolled-up days; six operations
 *   every hour), paced under the operation's own rate. Target: p95 <= 50 ms. And the usage
 *   counters' CPU per request (counting and flushing, this process plus the store), beside the
 *   common case's API and store CPU per request. Target: <= 5 % of it.
 * Each prints p50/p99, non-2xx and the CPU seconds the API and the store processes spent per
 * 1,000 requests (from /proc), and the figures go to docs/benchmark-results.md. BENCH_SECONDS (default 10) per measurement, after
 * BENCH_WARMUP_SECONDS (default 10) of the common load; BENCH_SCENARIOS=cold,common,capacity,usage (any of
 * them) runs only those.
 *
 * Where the time goes: the API process runs under V8's CPU profiler and the store (FerretDB) is
 * profiled through its pprof endpoint while the common load is measured (the cold load when
 * common is not run); their top costs go to the results table beside the figures, the API's by
 * area and by function over the measured seconds only. BENCH_API_CPU_PROF=dir keeps the API's
 * profile there; BENCH_PROFILES=0 runs without profilers (the store's needs Go's `go tool pprof`).
 */
const ORGS = Number(process.env.BENCH_ORGS ?? 50);
const PROFILES = process.env.BENCH_PROFILES !== '0';
/** Costs named per profile in the results table. */
const TOP_COSTS = 8;
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/**
 * Load before any measurement, at the common rate: a freshly started API and store are still warming
 * up (optimized code, heap sizes, the store's caches) and their tail latency is several times the
 * settled one. The target is about a service that has been running, so the default warm-up is long;
 * a short BENCH_WARMUP_SECONDS shows the younger service.
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 10);
/** BENCH_SCENARIOS=common, capacity or usage (comma-separated) runs those (default all). */
const SCENARIOS = new Set((process.env.BENCH_SCENARIOS ?? 'cold,common,capacity,usage').split(',').map((s) => s.trim()));
/** The cold scenario's measured seconds, reported in parts of COLD_SEGMENT_SECONDS (BENCH_COLD_SEGMENT_SECONDS=1 shows each second). */
const COLD_SECONDS = 20;
const COLD_SEGMENT_SECONDS = Number(process.env.BENCH_COLD_SEGMENT_SECONDS ?? 10);
/**
 * Each common-case measurement starts with this much of the same load, not counted: after the
 * pause that lets the service settle, every organization's cached key and settings (READ_CACHE_MS,
 * 1 s) have expired, and 50 organizations missing at the same instant is a start-up, not the
 * steady state the target is about (its misses alone would dominate the tail).
 */
const LEAD_IN_SECONDS = 2;

const TARGET_COMMON_P99_MS = 25;
const TARGET_CAPACITY_RATIO = 0.3;
/**
 * What a bare Koa route answers on this machine when the generator is not what limits it. Below
 * it, the bare figure is the generator's or the machine's (other work) and a ratio against it
 * flatters the API, so it is not reported as met.
 */
const CEILING_REQUESTS_PER_SECOND = 25_000;
const TARGET_USAGE_P95_MS = 50;
const TARGET_COUNTER_CPU_SHARE = 0.05;
/** Organizations GET /v1/usage is measured for, in turn: each answers 10 of it a second (its own rate). */
const USAGE_ORGS = 3;
const USAGE_REQUESTS_PER_SECOND_EACH = 8;
/** Requests counted when measuring the counters' CPU. */
const COUNTER_REQUESTS = 200_000;

function startBareRoute(): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(join(__dirname, 'bareRoute.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bare route exited ${code}`)));
    child.on('message', (m: { type?: string; url?: string }) => {
      if (m?.type === 'listening' && m.url) resolve({ url: m.url, child });
    });
  });
}

interface Measured {
  load: LoadResult;
  cpuSeconds: Record<string, number | undefined>;
  /** The store's commands per 1,000 requests served, by command (undefined without the store's metrics). */
  storeCommands?: Array<[string, number]>;
}

/** `insert 174, delete 60, …`: what the store answered per 1,000 requests. */
const commandList = (c: Array<[string, number]>) => c.map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ');

const perThousand = (cpu: number | undefined, requests: number) => (cpu === undefined || !requests ? 'n/a' : `${((cpu / requests) * 1000).toFixed(3)} s`);

function line(name: string, m: Measured): string {
  const l = m.load;
  // The CPU was spent on the lead-in's requests too.
  const served = l.requests + (l.leadInRequests ?? 0);
  const cpu = Object.entries(m.cpuSeconds)
    .map(([k, v]) => `${k} ${perThousand(v, served)}`)
    .join(', ');
  // Which limit refused (the problem's `limit`), where the generator read it.
  const refused = l.refusedBy && Object.keys(l.refusedBy).length ? l.refusedBy : l.statuses;
  const statuses = Object.keys(refused).length ? ` ${JSON.stringify(refused)}` : '';
  return (
    `  ${name.padEnd(24)} ${l.requestsPerSecond.toFixed(0).padStart(6)} req/s   p50 ${ms(l.p50Ms, 6)} ms   p99 ${ms(l.p99Ms, 7)} ms` +
    `   non-2xx ${l.non2xx}${statuses}   errors ${l.errors}\n` +
    `  ${''.padEnd(24)} CPU per 1,000 requests: ${cpu}, generator ${perThousand(l.generatorCpuSeconds, served)}\n` +
    (m.storeCommands ? `  ${''.padEnd(24)} store commands per 1,000 requests: ${commandList(m.storeCommands)}\n` : '')
  );
}

/** Milliseconds, or "n/a" when nothing answered (the generator reports NaN as null). */
const ms = (v: number | null, width: number) => (typeof v === 'number' && Number.isFinite(v) ? v.toFixed(1) : 'n/a').padStart(width);

const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');

async function measureAll(dir: string, stops: BenchStops): Promise<BenchFigure[]> {
  const { mongodbUri, temporalAddress, storePid } = await startBenchStack(dir, 'bench_api', stops);
  const config = loadConfig({
    ...process.env,
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    MONGODB_URI: mongodbUri,
    TEMPORAL_ADDRESS: temporalAddress,
    SECRETS_ENCRYPTION_KEY: process.env.SECRETS_ENCRYPTION_KEY ?? randomBytes(32).toString('base64'),
  });
  const deps = await openDeps(config);

  const keyFor = (name: string) => benchOrganization(deps.stores, name, 0, config.apiAudience);

  const stamp = Date.now();
  const common: { orgId: string; key: string }[] = [];
  for (let i = 0; i < ORGS; i++) common.push(await keyFor(`bench ${stamp} ${i}`));
  const raised = await keyFor(`bench ${stamp} raised`);
  await setOrganizationRate(deps.stores, config, raised.orgId, { requestsPerSecond: 100_000, maxConcurrency: 2_000 }, Date.now);
  const usageOrgs: { orgId: string; key: string }[] = [];
  let usageRows = 0;
  let counterCpu: Awaited<ReturnType<typeof measureCounterCpu>> | undefined;
  if (SCENARIOS.has('usage')) {
    for (let i = 0; i < USAGE_ORGS; i++) {
      const org = await keyFor(`bench ${stamp} usage ${i}`);
      usageRows = await seedYearOfUsage(deps.stores, org.orgId, Date.now());
      usageOrgs.push(org);
    }
    counterCpu = await measureCounterCpu(
      deps.stores,
      common.map((c) => c.orgId),
      COUNTER_REQUESTS,
      RATE,
      storePid,
    );
  }
  const profileDir = PROFILES ? (process.env.BENCH_API_CPU_PROF ?? join(dir, 'api-profile')) : undefined;
  const api = await startApiProcess(
    config,
    { LOG_LEVEL: process.env.BENCH_API_LOG_LEVEL ?? 'warn' },
    profileDir
      ? [
          '--cpu-prof',
          `--cpu-prof-dir=${profileDir}`,
          ...(process.env.BENCH_CPU_PROF_INTERVAL ? [`--cpu-prof-interval=${process.env.BENCH_CPU_PROF_INTERVAL}`] : []),
        ]
      : [],
  );
  stops.push(() => api.stop());
  const bare = await startBareRoute();
  stops.push(() => bare.child.kill('SIGTERM'));
  // Created while the API runs, as a user's organizations are: the API has never seen them.
  const cold: { orgId: string; key: string }[] = [];
  if (SCENARIOS.has('cold')) for (let i = 0; i < ORGS; i++) cold.push(await keyFor(`bench ${stamp} cold ${i}`));
  // The bench process only set up data; the API process does all the work from here on.
  await closeDeps(deps);
  const apiPid = api.child.pid;
  const barePid = bare.child.pid;

  const whoami = (base: string, key?: string): LoadTarget => ({ url: `${base}/v1/whoami`, headers: key ? { authorization: `Bearer ${key}` } : {} });
  const commonPlan = (base: string, seconds: number, leadInSeconds = 0): LoadPlan => ({
    mode: 'open',
    targets: common.map((c) => whoami(base, c.key)),
    ratePerSecond: RATE,
    seconds,
    leadInSeconds,
  });
  const measure = async (pids: Record<string, number | undefined>, plan: LoadPlan, onSending?: () => void): Promise<Measured> => {
    const commandsBefore = pids.store ? await storeCommandCounts(storePid) : undefined;
    const m = await measureCpu(pids, () => runLoad(plan, onSending));
    const commandsAfter = commandsBefore ? await storeCommandCounts(storePid) : undefined;
    const served = m.result.requests + (m.result.leadInRequests ?? 0);
    return {
      load: m.result,
      cpuSeconds: m.cpuSeconds,
      storeCommands: commandsBefore && commandsAfter ? commandsPerThousand(commandsBefore, commandsAfter, served) : undefined,
    };
  };

  // One answer to an organization outside every measured scenario: the API is up, nothing more.
  const first = await fetch(`${api.url}/v1/whoami`, { headers: { authorization: `Bearer ${raised.key}` } });
  if (first.status !== 200) throw new Error(`whoami answered ${first.status}: ${await first.text()}`);

  // Cold: the first seconds a user meets, before anything else warmed the API or the store.
  let coldApi: Measured | undefined;
  let profiledWindow: ProfileWindow | undefined;
  let storeCosts: ReturnType<typeof profileStore>['done'] | undefined;
  const profiled = async <T>(seconds: number, work: () => Promise<T>): Promise<T> => {
    if (PROFILES) storeCosts = profileStore(storePid, seconds, dir, TOP_COSTS).done;
    const fromUs = monotonicMicros();
    const result = await work();
    profiledWindow = { fromUs, toUs: monotonicMicros() };
    return result;
  };
  // The store's commands over the cold load's first second: where a new organization's first requests wait.
  let coldFirstSecond: Promise<Array<[string, number]> | undefined> | undefined;
  const countFirstSecond = () => {
    const before = storeCommandCounts(storePid);
    // Per 1,000 of 1,000 events: the counts themselves.
    coldFirstSecond = new Promise((resolve) => setTimeout(resolve, 1000)).then(async () => {
      const [b, a] = [await before, await storeCommandCounts(storePid)];
      return b && a ? commandsPerThousand(b, a, 1000) : undefined;
    });
  };
  if (cold.length) {
    const coldLoad = () =>
      measure(
        { api: apiPid, store: storePid },
        { mode: 'open', targets: cold.map((c) => whoami(api.url, c.key)), ratePerSecond: RATE, seconds: COLD_SECONDS, segmentSeconds: COLD_SEGMENT_SECONDS },
        countFirstSecond,
      );
    coldApi = SCENARIOS.has('common') ? await coldLoad() : await profiled(COLD_SECONDS, coldLoad);
  }

  // Warm-up at the common rate (JIT, connection pools, every organization seen once), then measure.
  // Before each measurement the API and the store have finished whatever an earlier one left.
  const quiet = () => waitUntilQuiet([apiPid, storePid]);
  if (SCENARIOS.has('common') && WARMUP_SECONDS > 0) await runLoad(commonPlan(api.url, WARMUP_SECONDS));
  let commonApi: Measured | undefined;
  let commonBare: Measured | undefined;
  if (SCENARIOS.has('common')) {
    await quiet();
    commonApi = await profiled(SECONDS + LEAD_IN_SECONDS, () => measure({ api: apiPid, store: storePid }, commonPlan(api.url, SECONDS, LEAD_IN_SECONDS)));
    await quiet();
    commonBare = await measure({ bare: barePid }, commonPlan(bare.url, SECONDS, LEAD_IN_SECONDS));
  }
  let capacityApi: Measured | undefined;
  let capacityBare: Measured | undefined;
  if (SCENARIOS.has('capacity')) {
    await runLoad({ mode: 'closed', target: whoami(api.url, raised.key), connections: CONNECTIONS, seconds: 2 });
    await quiet();
    const capacityLoad = () =>
      measure({ api: apiPid, store: storePid }, { mode: 'closed', target: whoami(api.url, raised.key), connections: CONNECTIONS, seconds: SECONDS });
    // Profiled when no open-loop scenario is: what each middleware costs at the API's limit.
    capacityApi = profiledWindow ? await capacityLoad() : await profiled(SECONDS, capacityLoad);
    await quiet();
    await runLoad({ mode: 'closed', target: whoami(bare.url), connections: CONNECTIONS, seconds: 2 });
    capacityBare = await measure({ bare: barePid }, { mode: 'closed', target: whoami(bare.url), connections: CONNECTIONS, seconds: SECONDS });
  }

  let usageLatencies: number[] = [];
  const usageStatuses: Record<number, number> = {};
  if (usageOrgs.length) {
    await quiet();
    const from = new Date(Date.now() - 90 * 24 * 3600_000).toISOString();
    const pace = 1000 / (USAGE_ORGS * USAGE_REQUESTS_PER_SECOND_EACH);
    const started = Date.now();
    for (let i = 0; Date.now() - started < SECONDS * 1000; i++) {
      const org = usageOrgs[i % usageOrgs.length];
      const t0 = performance.now();
      const res = await fetch(`${api.url}/v1/usage?granularity=day&from=${from}`, { headers: { authorization: `Bearer ${org.key}` } });
      const body = (await res.json()) as { data?: unknown[] };
      const took = performance.now() - t0;
      usageStatuses[res.status] = (usageStatuses[res.status] ?? 0) + 1;
      if (res.status === 200 && body.data?.length) usageLatencies.push(took);
      await new Promise((r) => setTimeout(r, Math.max(0, pace - took)));
    }
    usageLatencies = usageLatencies.sort((a, b) => a - b);
  }

  const w = (s: string) => process.stdout.write(s);
  w(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}, store ${storePid && !process.env.MONGODB_URI ? 'FerretDB 1.x over SQLite (scripts/localStack)' : config.mongodbUri.replace(/\/\/[^@]*@/, '//')}\n`,
  );
  w(
    `generator: bench/loadGenerator.ts in its own process; API: api/server.ts in its own process (LOG_LEVEL ${process.env.BENCH_API_LOG_LEVEL ?? 'warn'}); bare Koa route in its own process\n`,
  );
  const figures: BenchFigure[] = [];
  if (coldApi) {
    const segs = coldApi.load.segments ?? [];
    w(
      `cold: ${ORGS} organizations created while the API ran, never seen by it, at default limits, one key each, ${RATE} req/s offered in total (open loop), no warm-up, ${COLD_SECONDS} s\n`,
    );
    w(line('whoami, all middleware', coldApi));
    for (const g of segs)
      w(
        `  ${`seconds ${g.fromSecond}-${g.toSecond}`.padEnd(24)} p50 ${ms(g.p50Ms, 6)} ms   p99 ${ms(g.p99Ms, 7)} ms   non-2xx ${g.non2xx}   errors ${g.errors}\n`,
      );
    const segMet = (g: LoadSegment) => g.requests > 0 && g.p99Ms <= TARGET_COMMON_P99_MS && g.non2xx === 0 && g.errors === 0;
    const coldMet = segs.length > 0 && segs.every(segMet);
    w(
      `target: cold p99 <= ${TARGET_COMMON_P99_MS} ms over each ${COLD_SEGMENT_SECONDS} s and no non-2xx: ${verdict(coldMet)} (p99 ${segs.map((g) => ms(g.p99Ms, 0)).join(' / ')} ms)\n`,
    );
    for (const g of segs)
      figures.push({
        measure: `cold: ${ORGS} new organizations, ${RATE} req/s open loop, seconds ${g.fromSecond}-${g.toSecond}`,
        figure: `p50 ${ms(g.p50Ms, 0)} ms, p99 ${ms(g.p99Ms, 0)} ms, non-2xx ${g.non2xx}, errors ${g.errors}`,
        target: `p99 <= ${TARGET_COMMON_P99_MS} ms, no non-2xx`,
        met: segMet(g),
      });
    figures.push({
      measure: 'cold: CPU per 1,000 requests',
      figure: Object.entries(coldApi.cpuSeconds)
        .map(([k, v]) => `${k} ${perThousand(v, coldApi.load.requests)}`)
        .join(', '),
    });
    if (coldApi.storeCommands) figures.push({ measure: 'cold: store commands per 1,000 requests', figure: commandList(coldApi.storeCommands) });
    const firstSecond = await coldFirstSecond;
    if (firstSecond) {
      w(`  ${'first second'.padEnd(24)} store commands: ${commandList(firstSecond)}\n`);
      figures.push({ measure: `cold: store commands in the first second (${ORGS} new organizations)`, figure: commandList(firstSecond) });
    }
    const refusedBy = Object.entries(coldApi.load.refusedBy ?? {});
    if (refusedBy.length) figures.push({ measure: 'cold: non-2xx by status and refusing limit', figure: refusedBy.map(([k, v]) => `${k}: ${v}`).join(', ') });
  }
  if (commonApi && commonBare) {
    w(
      `common case: ${ORGS} organizations at default limits, one key each, ${RATE} req/s offered in total (open loop, ${(RATE / ORGS).toFixed(0)}/s each), ${SECONDS} s after a ${WARMUP_SECONDS} s warm-up and a ${LEAD_IN_SECONDS} s lead-in of the same load\n`,
    );
    w(line('whoami, all middleware', commonApi));
    w(line('bare Koa route', commonBare));
  }
  let ratio: number | undefined;
  if (capacityApi && capacityBare) {
    w(`capacity: one organization with a raised rate, closed loop, ${CONNECTIONS} connections, ${SECONDS} s\n`);
    w(line('whoami, all middleware', capacityApi));
    w(line('bare Koa route', capacityBare));
    ratio = capacityApi.load.requestsPerSecond / capacityBare.load.requestsPerSecond;
    w(`  ratio (whoami / bare)    ${ratio.toFixed(2)}\n`);
  }
  if (commonApi) {
    const l = commonApi.load;
    const commonMet = l.requests > 0 && l.p99Ms <= TARGET_COMMON_P99_MS && l.non2xx === 0 && l.errors === 0;
    w(`target: common case p99 <= ${TARGET_COMMON_P99_MS} ms and no non-2xx: ${verdict(commonMet)} (p99 ${ms(l.p99Ms, 0)} ms, non-2xx ${l.non2xx})\n`);
    figures.push({
      measure: `common: ${ORGS} organizations, ${RATE} req/s open loop, after a ${WARMUP_SECONDS} s warm-up`,
      figure: `p50 ${ms(l.p50Ms, 0)} ms, p99 ${ms(l.p99Ms, 0)} ms, non-2xx ${l.non2xx}, errors ${l.errors}`,
      target: `p99 <= ${TARGET_COMMON_P99_MS} ms, no non-2xx`,
      met: commonMet,
    });
    const served = l.requests + (l.leadInRequests ?? 0);
    figures.push({
      measure: 'common: CPU per 1,000 requests',
      figure: Object.entries(commonApi.cpuSeconds)
        .map(([k, v]) => `${k} ${perThousand(v, served)}`)
        .join(', '),
    });
    if (commonApi.storeCommands) figures.push({ measure: 'common: store commands per 1,000 requests', figure: commandList(commonApi.storeCommands) });
  }
  if (ratio !== undefined && capacityApi && capacityBare) {
    const bareRate = capacityBare.load.requestsPerSecond;
    const ceilingReached = bareRate >= CEILING_REQUESTS_PER_SECOND;
    const ratioMet = ceilingReached && ratio >= TARGET_CAPACITY_RATIO;
    if (!ceilingReached)
      w(
        `ceiling: the bare route answered ${bareRate.toFixed(0)} req/s, below the ${CEILING_REQUESTS_PER_SECOND} req/s it reaches on this machine: the generator or other work on the machine limited it, so the ratio is not reported as met\n`,
      );
    w(
      `target: capacity ratio >= ${TARGET_CAPACITY_RATIO} against a bare route at >= ${CEILING_REQUESTS_PER_SECOND} req/s: ${verdict(ratioMet)} (${ratio.toFixed(2)})\n`,
    );
    figures.push(
      {
        measure: `capacity: whoami, one raised organization, ${CONNECTIONS} connections closed loop`,
        figure: `${capacityApi.load.requestsPerSecond.toFixed(0)} req/s, p99 ${ms(capacityApi.load.p99Ms, 0)} ms`,
      },
      {
        measure: 'capacity: bare Koa route, same generator and run',
        figure: `${bareRate.toFixed(0)} req/s`,
        target: `>= ${CEILING_REQUESTS_PER_SECOND} req/s (else the ratio is the generator's)`,
        met: ceilingReached,
      },
      { measure: 'capacity ratio (whoami / bare)', figure: ratio.toFixed(2), target: `>= ${TARGET_CAPACITY_RATIO}, bare at its ceiling`, met: ratioMet },
      // What a change to the request path is compared by: requests per second move with the machine's load.
      {
        measure: 'capacity: API CPU per 1,000 requests',
        figure: `api ${perThousand(capacityApi.cpuSeconds.api, capacityApi.load.requests)}, bare ${perThousand(capacityBare.cpuSeconds.bare, capacityBare.load.requests)}`,
      },
    );
  }
  if (usageOrgs.length) {
    const n = usageLatencies.length;
    const p95 = n ? quantile(usageLatencies, 0.95) : NaN;
    w(
      `usage: GET /v1/usage?granularity=day over 90 days, ${USAGE_ORGS} organizations with ${usageRows} counter rows each, ${USAGE_ORGS * USAGE_REQUESTS_PER_SECOND_EACH} req/s, ${SECONDS} s; statuses ${JSON.stringify(usageStatuses)}\n`,
    );
    w(
      `  p50 ${ms(n ? quantile(usageLatencies, 0.5) : NaN, 6)} ms   p95 ${ms(p95, 6)} ms   p99 ${ms(n ? quantile(usageLatencies, 0.99) : NaN, 6)} ms   max ${ms(n ? usageLatencies[n - 1] : NaN, 6)} ms (client-side, ${n} answers)\n`,
    );
    w(`target: GET /v1/usage over 90 days p95 <= ${TARGET_USAGE_P95_MS} ms: ${verdict(n > 0 && p95 <= TARGET_USAGE_P95_MS)} (p95 ${ms(p95, 0)} ms)\n`);
    figures.push({
      measure: `usage: GET /v1/usage by the day over 90 days, ${usageRows} counter rows`,
      figure: `p95 ${ms(p95, 0)} ms`,
      target: `p95 <= ${TARGET_USAGE_P95_MS} ms`,
      met: n > 0 && p95 <= TARGET_USAGE_P95_MS,
    });
  }
  if (counterCpu) {
    const counters = counterCpu.processSeconds + (counterCpu.storeSeconds ?? 0);
    w(
      `usage counters: ${COUNTER_REQUESTS} requests counted over ${ORGS} organizations at ${RATE}/s of clock, about ${counterCpu.minutes * ORGS} upserts (one per organization and minute); CPU per 1,000 requests: counting ${perThousand(counterCpu.processSeconds, COUNTER_REQUESTS)}, store ${perThousand(counterCpu.storeSeconds, COUNTER_REQUESTS)}\n`,
    );
    if (commonApi) {
      const served = commonApi.load.requests + (commonApi.load.leadInRequests ?? 0);
      const path = ((commonApi.cpuSeconds.api ?? 0) + (commonApi.cpuSeconds.store ?? 0)) / served;
      const perRequest = counters / COUNTER_REQUESTS;
      const share = perRequest / (path - perRequest);
      w(
        `  beside the common case's request path: ${(path * 1e6).toFixed(0)} µs of API and store CPU per request, of which the counters ${(perRequest * 1e6).toFixed(2)} µs\n`,
      );
      w(
        `target: the counters add <= ${TARGET_COUNTER_CPU_SHARE * 100} % to the request path's CPU: ${verdict(share <= TARGET_COUNTER_CPU_SHARE)} (${(share * 100).toFixed(2)} %)\n`,
      );
      figures.push({
        measure: "usage counters' CPU beside the request path's",
        figure: `${(share * 100).toFixed(2)} %`,
        target: `<= ${TARGET_COUNTER_CPU_SHARE * 100} %`,
        met: share <= TARGET_COUNTER_CPU_SHARE,
      });
    }
  }
  const profiledLoad = SCENARIOS.has('common') ? 'common load' : SCENARIOS.has('cold') ? 'cold load' : 'capacity load';
  const named = (who: string, costs: TopCost[]) => {
    if (costs.length) w(`${who}, ${profiledLoad}:\n`);
    for (const c of costs) {
      w(`  ${(c.share * 100).toFixed(1).padStart(5)} %  ${c.name}\n`);
      figures.push({ measure: `${who}, ${profiledLoad}: ${c.name}`, figure: `${(c.share * 100).toFixed(1)} % of busy time` });
    }
  };
  if (profileDir && profiledWindow) {
    // The profile is written when the API process exits.
    await api.stop();
    const file = newestProfile(profileDir);
    if (file) {
      named('API CPU by area (self time)', costsByArea(file, TOP_COSTS, profiledWindow));
      named('API CPU by function (self time)', topCosts(file, TOP_COSTS, profiledWindow));
    }
  }
  if (storeCosts) {
    const costs = await storeCosts;
    named('store CPU by command (cumulative)', costs.byCommand);
    named('store CPU by function (self time)', costs.self);
    if (!costs.self.length) w('store CPU profile: none (the store has no pprof address, or `go tool pprof` is missing)\n');
  }
  return figures;
}

// A run of some scenarios has a section of its own in the results, beside the last run of all.
const ALL_SCENARIOS = ['cold', 'common', 'capacity', 'usage'];
runBench(ALL_SCENARIOS.every((s) => SCENARIOS.has(s)) ? 'api' : `api (${[...SCENARIOS].join(', ')})`, measureAll);
