import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, relative } from 'node:path';

/**
 * The one table of measured figures: each benchmark run replaces its own section of
 * `docs/benchmark-results.json` and the page generated from it, `docs/benchmark-results.md`,
 * which the docs link instead of quoting figures. A figure is only meaningful beside the machine
 * and its load, so both are recorded with every run.
 */
export interface BenchFigure {
  /** What was measured, in words (scenario and statistic). */
  measure: string;
  /** The figure with its unit. */
  figure: string;
  /** The target it is held to, when it has one. */
  target?: string;
  met?: boolean;
}

export interface BenchRecord {
  bench: string;
  command: string;
  /** BENCH_* settings the run was given (the defaults otherwise). */
  settings: Record<string, string>;
  date: string;
  machine: string;
  /** Load average (1, 5, 15 minutes) when the run started: other work on the machine moves every figure. */
  loadAtStart: string;
  figures: BenchFigure[];
}

const DOCS = join(__dirname, '..', 'docs');
export const RESULTS_JSON = join(DOCS, 'benchmark-results.json');
const RESULTS_PAGE = join(DOCS, 'benchmark-results.md');

export function machineDescription(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model?.trim() ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, node ${process.version}, ${process.platform}`;
}

export function loadAverage(): string {
  return loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ');
}

function readRecords(): BenchRecord[] {
  if (!existsSync(RESULTS_JSON)) return [];
  return JSON.parse(readFileSync(RESULTS_JSON, 'utf8')) as BenchRecord[];
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function resultsPage(records: BenchRecord[]): string {
  const out = [
    '# Benchmark results',
    '',
    'Generated: each benchmark in `bench/` rewrites its own section when it finishes (`bench/benchResults.ts`).',
    'Do not edit by hand; run the benchmark again. [Performance](performance.md) says what each measures and how to run it.',
    'Figures from a loaded machine (see the load average) are noisier and usually slower.',
    '',
  ];
  for (const r of [...records].sort((a, b) => a.bench.localeCompare(b.bench))) {
    const settings = Object.entries(r.settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    out.push(
      `## ${r.bench}`,
      '',
      `\`${settings ? `${settings} ` : ''}${r.command}\` on ${r.date}; ${r.machine}; load average at the start ${r.loadAtStart}.`,
      '',
      '| Measure | Figure | Target | Met |',
      '|---|---|---|---|',
      ...r.figures.map((f) => `| ${cell(f.measure)} | ${cell(f.figure)} | ${cell(f.target ?? '')} | ${f.met === undefined ? '' : f.met ? 'yes' : '**no**'} |`),
      '',
    );
  }
  return out.join('\n');
}

/**
 * The sections after `record` is in: it replaces its own, and a whole run (`api`) also replaces
 * the sections of its partial runs (`api (cold)`), whose figures it has measured again; left
 * beside it, an older partial section would read as a second, different result.
 */
export function recordsWith(records: readonly BenchRecord[], record: BenchRecord): BenchRecord[] {
  const replaced = (bench: string) => bench === record.bench || bench.startsWith(`${record.bench} (`);
  return [...records.filter((r) => !replaced(r.bench)), record].sort((a, b) => a.bench.localeCompare(b.bench));
}

/** Replaces this benchmark's section of the results file and regenerates its page. */
export function recordResult(record: BenchRecord): void {
  const records = recordsWith(readRecords(), record);
  writeFileSync(RESULTS_JSON, `${JSON.stringify(records, null, 2)}\n`);
  writeFileSync(RESULTS_PAGE, resultsPage(records));
}

/** The command that ran this benchmark, as a reader would type it. */
export function benchCommand(): string {
  return `npx tsx ${relative(join(__dirname, '..'), process.argv[1] ?? 'bench')}`;
}

export function benchSettings(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env)
      .filter(([k, v]) => k.startsWith('BENCH_') && v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b)) as Array<[string, string]>,
  );
}
