import { cpus } from 'node:os';
import { closeDeps, openDeps } from '../core/deps';
import { startApiProcess } from '../test/support/apiProcess';
import { loadAverage, type BenchFigure } from './benchResults';
import { newestProfile, topCosts } from './cpuProfileSummary';
import { measureCpu } from './processCpu';
import { profileStore } from './storeCpuProfile';
import { benchConfig, benchOrganization, runBench, startBenchStack, type BenchStops } from './benchStack';
import { signInOverHttp } from './consoleSignIn';
import { seedConsoleOrganization } from './consoleSeed';
import type { LoadResult } from './loadGenerator';
import { runLoad } from './loadRun';
import { createLogger } from '../core/observability/logger';

/**
 * One organization's console traffic cannot move another organization's p99 (issue #40 item 3):
 * a noisy organization with BENCH_ENTRIES (20,000) audit and ledger entries has
 * BENCH_PAGE_CONNECTIONS (30) connections loading its worst-case console page (the audit log
 * filtered by an action none of its entries has, so each page scans as far as one page may) and
 * BENCH_EXPORT_CONNECTIONS (10) downloading its audit and ledger CSVs, each connection sending
 * its next request when the last one answered, while a quiet organization calls `/v1/whoami` at
 * BENCH_RATE (20) requests/s, open loop. The quiet organization's p99 is measured alone, then
 * under that load; target: loaded p99 <= 2 x quiet p99.
 *
 *   npx tsx bench/consoleIsolation.ts     (starts FerretDB and Temporal unless MONGODB_URI and TEMPORAL_ADDRESS are set)
 *
 * BENCH_API_CPU_PROF=dir writes a CPU profile of the API process there and lists its top costs;
 * BENCH_STORE_CPU_PROF=1 profiles the store (FerretDB's pprof) while the loaded phase is measured.
 *
 * The API (`api/server.ts`) runs in its own process and every load in a generator process of its
 * own (bench/loadGenerator.ts), so the API pays nothing for the load it receives.
 */
const RATE = Number(process.env.BENCH_RATE ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 20_000);
const PAGE_CONNECTIONS = Number(process.env.BENCH_PAGE_CONNECTIONS ?? 30);
const EXPORT_CONNECTIONS = Number(process.env.BENCH_EXPORT_CONNECTIONS ?? 10);
const LEAD_IN_SECONDS = 3;
/** Time a generator process takes to load and start sending, at most: the noisy loads run this much longer. */
const GENERATOR_START_SECONDS = 4;
const TARGET_FACTOR = 2;
/** An action no seeded entry has: the filtered page reads every number it may before answering. */
const WORST_CASE_PAGE = '/console/audit?action=key.created';
const EXPORTS = ['/console/audit/download', '/console/usage/ledger.csv'];

function line(name: string, r: LoadResult): string {
  const statuses = Object.entries(r.statuses)
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ');
  return `${name.padEnd(44)} ${String(r.requests).padStart(7)} ${r.p50Ms.toFixed(1).padStart(8)} ${r.p99Ms.toFixed(1).padStart(8)}   non-2xx ${r.non2xx}${statuses ? ` (${statuses})` : ''}, errors ${r.errors}`;
}

async function measure(dir: string, stops: BenchStops): Promise<BenchFigure[]> {
  const stack = await startBenchStack(dir, 'bench_console_isolation', stops, (m) => process.stdout.write(`${m}\n`));
  const config = benchConfig(stack);
  const deps = await openDeps(config, { logger: createLogger({ level: 'silent' }) });
  process.stdout.write(`seeding the noisy organization: ${ENTRIES} audit and ${ENTRIES} ledger entries\n`);
  const noisy = await seedConsoleOrganization(config, deps.stores, {
    keys: 5,
    people: 2,
    ledgerEntries: ENTRIES,
    auditEntries: ENTRIES,
    deliveryAttempts: 0,
    jobs: 0,
  });
  const quiet = await benchOrganization(deps.stores, 'quiet organization', 0, config.apiAudience);
  await closeDeps(deps);

  const profileDir = process.env.BENCH_API_CPU_PROF;
  const api = await startApiProcess(
    config,
    { LOG_LEVEL: process.env.BENCH_API_LOG_LEVEL ?? 'warn' },
    profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  );
  stops.push(() => api.stop());
  const cookie = await signInOverHttp(api.url, noisy.adminEmail, noisy.adminPassword);
  const whoami = { url: `${api.url}/v1/whoami`, headers: { authorization: `Bearer ${quiet.key}` } };
  const victim = () => runLoad({ mode: 'open', targets: [whoami], ratePerSecond: RATE, seconds: SECONDS, leadInSeconds: LEAD_IN_SECONDS });
  // CPU of the API and the store while each phase runs: the cost the noise adds, which a busy
  // machine's p99 alone hides.
  const pids = { api: api.child.pid, store: stack.storePid };
  const cpuText = (cpu: Record<string, number | undefined>) =>
    Object.entries(cpu)
      .map(([k, s]) => `${k} ${s === undefined ? '?' : `${(s / (SECONDS + LEAD_IN_SECONDS)).toFixed(2)}`} cores`)
      .join(', ');

  const aloneLoad = loadAverage();
  const { result: alone, cpuSeconds: aloneCpu } = await measureCpu(pids, victim);
  process.stdout.write(`${line('quiet organization alone: /v1/whoami', alone)}\n`);

  // The noisy loads are sending before the quiet organization's generator starts, and run past
  // its start, lead-in and measured seconds: the quiet figures are then taken beside the noise,
  // not beside three generator processes loading their code (which the quiet phase alone never
  // pays for).
  const noisySeconds = GENERATOR_START_SECONDS + LEAD_IN_SECONDS + SECONDS + 2;
  const perExport = Math.round(EXPORT_CONNECTIONS / EXPORTS.length);
  const noisyLoads = [{ path: WORST_CASE_PAGE, connections: PAGE_CONNECTIONS }, ...EXPORTS.map((path) => ({ path, connections: perExport }))].filter(
    (l) => l.connections > 0,
  );
  const sending: Array<Promise<void>> = [];
  const noise = Promise.all(
    noisyLoads.map((l) => {
      let started!: () => void;
      sending.push(new Promise<void>((resolve) => (started = resolve)));
      return runLoad(
        { mode: 'closed', target: { url: `${api.url}${l.path}`, headers: { cookie } }, connections: l.connections, seconds: noisySeconds },
        started,
      );
    }),
  );
  // A load that fails while the quiet one runs is reported when awaited below, not as an
  // unhandled rejection that would end the process before its services are stopped.
  noise.catch(() => undefined);
  await Promise.race([Promise.all(sending), noise]);
  const loadedLoad = loadAverage();
  const storeProfile = process.env.BENCH_STORE_CPU_PROF ? profileStore(stack.storePid, SECONDS, dir) : undefined;
  const { result: loaded, cpuSeconds: loadedCpu } = await measureCpu(pids, victim);
  const noisyResults = await noise;

  const target = alone.p99Ms * TARGET_FACTOR;
  const verdict = loaded.p99Ms <= target ? 'meets' : 'MISSES';
  process.stdout.write(
    [
      '',
      `another organization's console traffic against /v1/whoami p99; ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`,
      `quiet: ${RATE} req/s open loop for ${SECONDS} s after ${LEAD_IN_SECONDS} s lead-in; noisy: ${PAGE_CONNECTIONS} connections on ${WORST_CASE_PAGE},`,
      `${perExport * EXPORTS.length} on its CSV exports (${EXPORTS.join(', ')}), ${ENTRIES} audit and ledger entries`,
      `${'load'.padEnd(44)} ${'answers'.padStart(7)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)}`,
      line('quiet organization alone: /v1/whoami', alone),
      line('quiet organization, loaded: /v1/whoami', loaded),
      `CPU while the quiet organization is measured: alone ${cpuText(aloneCpu)}; loaded ${cpuText(loadedCpu)}`,
      `load average as each phase started: alone ${aloneLoad}; loaded ${loadedLoad}`,
      ...noisyLoads.map((l, i) => line(`noisy: ${l.path}`, noisyResults[i])),
      `quiet p99 ${alone.p99Ms.toFixed(1)} ms, loaded p99 ${loaded.p99Ms.toFixed(1)} ms, target <= ${target.toFixed(1)} ms (${TARGET_FACTOR} x quiet): ${verdict}`,
      '',
    ].join('\n'),
  );
  const costs: BenchFigure[] = [];
  if (storeProfile) {
    const { self, byCommand } = await storeProfile.done;
    if (!self.length) process.stdout.write('store CPU profile: none (no debug address, or Go tools missing)\n');
    for (const [what, rows] of [
      ['command', byCommand],
      ['self', self],
    ] as const)
      for (const c of rows) {
        process.stdout.write(`  store ${what}: ${(c.share * 100).toFixed(1).padStart(5)} %  ${c.name}\n`);
        costs.push({ measure: `store CPU profile, loaded phase, by ${what}: ${c.name}`, figure: `${(c.share * 100).toFixed(1)} % of samples` });
      }
  }
  if (profileDir) {
    // The profile is written when the API process exits.
    await api.stop();
    const file = newestProfile(profileDir);
    if (file)
      for (const c of topCosts(file)) {
        process.stdout.write(`  ${(c.share * 100).toFixed(1).padStart(5)} %  ${c.name}\n`);
        costs.push({ measure: `API CPU profile, whole run: ${c.name}`, figure: `${(c.share * 100).toFixed(1)} % of busy time` });
      }
  }
  const figure = (r: LoadResult) => `p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms, non-2xx ${r.non2xx}, errors ${r.errors}`;
  return [
    { measure: `quiet organization alone: /v1/whoami at ${RATE} req/s`, figure: figure(alone) },
    {
      measure: `quiet organization beside ${PAGE_CONNECTIONS} worst-case page and ${perExport * EXPORTS.length} export connections of another`,
      figure: figure(loaded),
      target: `p99 <= ${TARGET_FACTOR} x alone (${target.toFixed(1)} ms)`,
      met: loaded.p99Ms <= target,
    },
    { measure: 'CPU of the API and the store, alone and loaded', figure: `alone ${cpuText(aloneCpu)}; loaded ${cpuText(loadedCpu)}` },
    { measure: 'load average as each phase started', figure: `alone ${aloneLoad}; loaded ${loadedLoad}` },
    ...noisyLoads.map((l, i) => ({ measure: `noisy: ${l.path}`, figure: `${noisyResults[i].requests} answers, ${figure(noisyResults[i])}` })),
    ...costs,
  ];
}

runBench('console-isolation', measure);
