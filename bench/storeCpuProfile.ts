import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TopCost } from './cpuProfileSummary';

const run = promisify(execFile);

/**
 * A CPU profile of the local store (FerretDB, a Go program) while a benchmark loads it: FerretDB
 * serves Go's pprof on its `--debug-addr`, and `go tool pprof` reads the profile. The local
 * stack's store is the one process of the request path whose costs the API's own profile cannot
 * name, so a benchmark asks for both.
 */
export interface StoreCpuProfile {
  /**
   * The store's top self costs over the profiled seconds, and the wire-protocol commands it spent
   * them in (cumulative, FerretDB's `Msg…` handlers); empty when the profile could not be read.
   */
  done: Promise<{ self: TopCost[]; byCommand: TopCost[] }>;
}

/** The debug address the store process was started with, if it has one. */
export function debugAddress(pid: number): string | undefined {
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return args.find((a) => a.startsWith('--debug-addr='))?.slice('--debug-addr='.length);
  } catch {
    return undefined;
  }
}

/** One row of `go tool pprof -top`: flat, flat%, sum%, cum, cum%, name. */
const TOP_ROW = /^\s*\S+\s+([\d.]+)%\s+[\d.]+%\s+\S+\s+([\d.]+)%\s+(.+)$/;

/** The rows of `go tool pprof -top` output, as shares of the profile: self (flat) or cumulative. */
export function parsePprofTop(text: string, n: number, share: 'flat' | 'cum' = 'flat'): TopCost[] {
  const costs: TopCost[] = [];
  for (const line of text.split('\n')) {
    const m = TOP_ROW.exec(line);
    if (m && costs.length < n) costs.push({ name: m[3].trim(), share: Number(share === 'flat' ? m[1] : m[2]) / 100 });
  }
  return costs;
}

/** FerretDB's handler of each wire-protocol command (`(*Handler).MsgInsert`, `MsgFind`, …). */
const COMMAND_HANDLERS = String.raw`\(\*Handler\)\.Msg`;

/**
 * Starts profiling the store process `pid` for `seconds` (the profile is taken by the store while
 * the caller runs its load); `done` resolves with its top `n` self costs, or none when the store
 * has no debug address or Go's tools are missing (the benchmark then says so).
 */
export function profileStore(pid: number | undefined, seconds: number, dir: string, n = 12): StoreCpuProfile {
  const addr = pid === undefined ? undefined : debugAddress(pid);
  const none = { self: [], byCommand: [] };
  if (!addr) return { done: Promise.resolve(none) };
  const file = join(dir, `store-${pid}.pprof`);
  const done = (async () => {
    const res = await fetch(`http://${addr}/debug/pprof/profile?seconds=${seconds}`);
    if (!res.ok) return none;
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const top = (args: string[]) => run('go', ['tool', 'pprof', '-top', `-nodecount=${n}`, ...args, file], { maxBuffer: 4 * 2 ** 20 });
    const self = parsePprofTop((await top([])).stdout, n);
    const byCommand = parsePprofTop((await top(['-cum', `-show=${COMMAND_HANDLERS}`])).stdout, n, 'cum');
    return { self, byCommand };
  })().catch(() => none);
  return { done };
}
