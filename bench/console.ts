import { cpus } from 'node:os';
import { closeDeps, openDeps } from '../core/deps';
import { startApiProcess } from '../test/support/apiProcess';
import { loadAverage, type BenchFigure } from './benchResults';
import { benchConfig, runBench, startBenchStack, type BenchStops } from './benchStack';
import { seedConsoleOrganization, type ConsoleSeedSize } from './consoleSeed';
import { signInOverHttp } from './consoleSignIn';
import type { LoadResult } from './loadGenerator';
import { processCpuSeconds } from './processCpu';
import { storeCommandCounts } from './storeCommands';
import { runLoad } from './loadRun';
import { createLogger } from '../core/observability/logger';

/**
 * The organization console's server time, measured from outside as a signed-in person meets it:
 * one organization seeded to the speed target's sizes (bench/consoleSeed.ts), the API
 * (`api/server.ts`) in its own process, the load generator (bench/loadGenerator.ts) in a third.
 *
 *   npx tsx bench/console.ts     (starts FerretDB and Temporal via scripts/localStack unless MONGODB_URI is set)
 *
 * The seeded admin signs in over HTTP as a browser does (the sign-in page's CSRF token and
 * session cookie, then the form), and every console page that exists is loaded with that
 * session, one page at a time: BENCH_RATE (default 2) requests/s, open loop, for BENCH_SECONDS
 * (default 15) after LEAD_IN_SECONDS of the same load. Two a second is a person's pace and
 * within the console's read pace for one organization (docs/limits.md): faster, the list pages
 * answer the paced 429 page and the bench would time the pace, not the page. Target (issue "Organization console",
 * 6): p95 <= 100 ms per page; the open-loop generator reports p50, p95 and p99.
 * BENCH_CONSOLE_SCALE (default 1) multiplies the seeded sizes (0.01 for a quick try);
 * BENCH_PAGES=/console/audit,… measures only those pages. BENCH_CONSOLE_SIZES=account seeds the
 * organization the account pages' target names (keys, people, ledger and audit entries, no
 * delivery attempts or jobs); the default, `activity`, adds 100,000 attempts and 10,000 jobs.
 */
const RATE = Number(process.env.BENCH_RATE ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const SCALE = Number(process.env.BENCH_CONSOLE_SCALE ?? 1);
const LEAD_IN_SECONDS = 3;
const TARGET_P95_MS = 100;

const FULL_SIZE: ConsoleSeedSize = {
  keys: 200,
  people: 50,
  ledgerEntries: 100_000,
  auditEntries: 100_000,
  deliveryAttempts: 100_000,
  jobs: 10_000,
};

const SIZES: Record<string, ConsoleSeedSize> = {
  activity: FULL_SIZE,
  account: { ...FULL_SIZE, deliveryAttempts: 0, jobs: 0 },
};

/** The console's pages a person reads (GET), in the navigation's order. */
const PAGES = [
  '/console/overview',
  '/console/keys',
  '/console/limits',
  '/console/budgets',
  '/console/usage',
  '/console/webhooks',
  '/console/webhooks/deliveries',
  '/console/webhooks/deliveries?status=dead_lettered',
  '/console/jobs',
  '/console/team',
  '/console/audit',
];

function scaled(size: ConsoleSeedSize, scale: number): ConsoleSeedSize {
  const out = { ...size };
  for (const k of Object.keys(out) as Array<keyof ConsoleSeedSize>) out[k] = out[k] === 0 ? 0 : Math.max(1, Math.round(out[k] * scale));
  return out;
}

/**
 * What a page cost besides its time, less sensitive to a busy machine than latency: the API
 * process's CPU and the store commands per request (lead-in included; the store's count holds
 * the API's background work of those seconds too), and the load average as the page started.
 */
interface PageCost {
  apiCpuMs: number | undefined;
  storeCommands: number | undefined;
  loadAtStart: string;
}

function costText(c: PageCost): string {
  const cpu = c.apiCpuMs === undefined ? '' : `API CPU ${c.apiCpuMs.toFixed(1)} ms`;
  const commands = c.storeCommands === undefined ? '' : `${c.storeCommands.toFixed(1)} store commands`;
  const each = [cpu, commands].filter(Boolean).join(' and ');
  return `${each ? `${each} a request; ` : ''}load at start ${c.loadAtStart}`;
}

/** A page's row in the results table (bench/benchResults.ts). */
function figure(page: string, r: LoadResult, cost: PageCost): BenchFigure {
  // A run without one answer reports its percentiles as null (NaN in JSON).
  const p95: number | null = r.p95Ms ?? r.p99Ms;
  const answered = typeof p95 === 'number' && typeof r.p50Ms === 'number';
  return {
    measure: `${page}, ${RATE} req/s open loop`,
    figure: answered
      ? `p50 ${r.p50Ms.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms, non-2xx ${r.non2xx}; ${costText(cost)}`
      : `no answer measured: ${JSON.stringify(r.statuses)}`,
    target: `p95 <= ${TARGET_P95_MS} ms, no non-2xx`,
    met: answered && p95 <= TARGET_P95_MS && r.non2xx === 0 && r.errors === 0,
  };
}

function row(page: string, r: LoadResult | null, note = ''): string {
  // A run without one answer reports its percentiles as null (NaN in JSON).
  if (!r) return `${page.padEnd(32)} ${'—'.padStart(8)} ${'—'.padStart(8)}   ${note}`;
  if (r.p50Ms === null || r.p99Ms === null) return `${page.padEnd(32)} no answer measured: ${JSON.stringify(r.statuses)}, errors ${r.errors}`;
  const p95 = r.p95Ms ?? r.p99Ms;
  const verdict = p95 <= TARGET_P95_MS && r.non2xx === 0 && r.errors === 0 ? 'meets' : 'MISSES';
  return `${page.padEnd(32)} ${r.p50Ms.toFixed(1).padStart(8)} ${p95.toFixed(1).padStart(8)} ${r.p99Ms.toFixed(1).padStart(8)}   ${verdict} (p95 <= ${TARGET_P95_MS} ms; non-2xx ${r.non2xx}, errors ${r.errors})${note}`;
}

function pageCost(
  r: LoadResult,
  loadAtStart: string,
  cpuBefore: number | undefined,
  cpuAfter: number | undefined,
  commandsBefore: Record<string, number> | undefined,
  commandsAfter: Record<string, number> | undefined,
): PageCost {
  const sent = r.requests + (r.leadInRequests ?? 0);
  const total = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);
  return {
    loadAtStart,
    apiCpuMs: sent && cpuBefore !== undefined && cpuAfter !== undefined ? ((cpuAfter - cpuBefore) * 1000) / sent : undefined,
    storeCommands: sent && commandsBefore && commandsAfter ? (total(commandsAfter) - total(commandsBefore)) / sent : undefined,
  };
}

async function measure(dir: string, stops: BenchStops): Promise<BenchFigure[]> {
  const stack = await startBenchStack(dir, 'bench_console', stops, (m) => process.stdout.write(`${m}\n`));
  const config = benchConfig(stack);
  const deps = await openDeps(config, { logger: createLogger({ level: 'silent' }) });
  const sizes = SIZES[process.env.BENCH_CONSOLE_SIZES ?? 'activity'];
  if (!sizes) throw new Error(`BENCH_CONSOLE_SIZES is one of ${Object.keys(SIZES).join(', ')}`);
  const size = scaled(sizes, SCALE);
  process.stdout.write(`seeding ${JSON.stringify(size)}\n`);
  const seedStart = Date.now();
  const seeded = await seedConsoleOrganization(config, deps.stores, size);
  const seedSeconds = (Date.now() - seedStart) / 1000;
  process.stdout.write(`seeded in ${seedSeconds.toFixed(1)} s\n`);
  // The bench process only set up data; the API process does all the work from here on.
  await closeDeps(deps);

  const api = await startApiProcess(config, { LOG_LEVEL: process.env.BENCH_API_LOG_LEVEL ?? 'warn' });
  stops.push(() => api.stop());
  // The sign-in pages' session cookie is named after the AUTH_URL, which is the API process's own URL here.
  const cookie = await signInOverHttp(api.url, seeded.adminEmail, seeded.adminPassword);

  const lines: string[] = [];
  const figures: BenchFigure[] = [];
  const only = process.env.BENCH_PAGES?.split(',');
  // BENCH_PAGES may also name paths outside the navigation, such as a filtered list (`/console/jobs?status=failed`).
  for (const page of only ?? PAGES) {
    const probeStart = performance.now();
    const probe = await fetch(`${api.url}${page}`, { headers: { cookie }, redirect: 'manual' });
    await probe.arrayBuffer();
    if (process.env.BENCH_VERBOSE) process.stdout.write(`${page}: first answer in ${(performance.now() - probeStart).toFixed(0)} ms\n`);
    if (probe.status === 404) {
      lines.push(row(page, null, 'not in this tree (404), skipped'));
      continue;
    }
    if (process.env.BENCH_VERBOSE) process.stdout.write(`${page}: ${probe.status}, ${JSON.stringify(Object.fromEntries(probe.headers))}\n`);
    if (probe.status !== 200) throw new Error(`${page} answered ${probe.status} to the signed-in admin`);
    const loadAtStart = loadAverage();
    const cpuBefore = processCpuSeconds(api.child.pid);
    const commandsBefore = await storeCommandCounts(stack.storePid);
    const result = await runLoad({
      mode: 'open',
      targets: [{ url: `${api.url}${page}`, headers: { cookie } }],
      ratePerSecond: RATE,
      seconds: SECONDS,
      leadInSeconds: LEAD_IN_SECONDS,
    });
    const cost = pageCost(result, loadAtStart, cpuBefore, processCpuSeconds(api.child.pid), commandsBefore, await storeCommandCounts(stack.storePid));
    if (process.env.BENCH_VERBOSE) process.stdout.write(`${JSON.stringify(result)}\n`);
    lines.push(row(page, result, `; ${costText(cost)}`));
    figures.push(figure(page, result, cost));
    process.stdout.write(`${lines[lines.length - 1]}\n`);
  }

  process.stdout.write(
    [
      '',
      `console pages, one organization of ${JSON.stringify(size)} (seeded in ${seedSeconds.toFixed(0)} s)`,
      `${RATE} req/s open loop per page for ${SECONDS} s after ${LEAD_IN_SECONDS} s lead-in; ${cpus().length} CPUs (${cpus()[0]?.model ?? 'unknown'})`,
      `${'page'.padEnd(32)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'p99 ms'.padStart(8)}   target`,
      ...lines,
      '',
    ].join('\n'),
  );
  return figures;
}

runBench('console', measure);
