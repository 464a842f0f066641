import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The parts of a V8 CPU profile (`node --cpu-prof`) read here. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  /** Microseconds on the machine's monotonic clock, the one `process.hrtime` reads in every process. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface TopCost {
  /** Function and where it is: a file of this repository, a package, or a V8 / node internal. */
  name: string;
  /** Share of the busy (non-idle) samples spent in it, self time. */
  share: number;
}

/**
 * The part of a profiled process's life to summarize, on the monotonic clock in microseconds
 * (`monotonicMicros()` in the benchmark's process): a whole-run profile also holds start-up
 * (loading and compiling modules), which is not what a load costs.
 */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

export function monotonicMicros(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** Not work: the process waiting, or the profiler itself. */
const NOT_WORK = new Set(['(idle)', '(program)', '(root)']);

const ROOT = join(__dirname, '..');

function place(url: string, line: number): string {
  if (!url) return '';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return url;
  const path = url.replace(/^file:\/\//, '');
  return `${relative(ROOT, path)}:${line + 1}`;
}

/** A package, a node module, this repository's folder, or the V8 work it is (garbage collection, native code). */
function area(functionName: string, url: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native code: system calls, V8 builtins)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:'))
    return `node:${
      url
        .slice('node:'.length)
        .replace(/^internal\//, '')
        .split('/')[0]
    }`;
  return relative(ROOT, url.replace(/^file:\/\//, ''))
    .split('/')
    .slice(0, 2)
    .join('/');
}

/** Self time per key (a function, an area) over the busy samples in `window`, the `n` largest as shares. */
function largestSelfTimes(profileFile: string, n: number, key: (frame: CpuProfile['nodes'][number]['callFrame']) => string, window?: ProfileWindow): TopCost[] {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let busy = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0;
    at += dt;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    const frame = byId.get(id)?.callFrame;
    if (!frame || NOT_WORK.has(frame.functionName)) return;
    const name = key(frame);
    self.set(name, (self.get(name) ?? 0) + dt);
    busy += dt;
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, t]) => ({ name, share: busy ? t / busy : 0 }));
}

/** The `n` functions with the most self time in a profile (or in its `window`), as shares of its busy time. */
export function topCosts(profileFile: string, n = 12, window?: ProfileWindow): TopCost[] {
  return largestSelfTimes(
    profileFile,
    n,
    (frame) => {
      const where = place(frame.url, frame.lineNumber);
      return `${frame.functionName || '(anonymous)'}${where ? ` (${where})` : ''}`;
    },
    window,
  );
}

/** Self time by area (package, node module, folder of this repository, garbage collection), the `n` largest. */
export function costsByArea(profileFile: string, n = 8, window?: ProfileWindow): TopCost[] {
  return largestSelfTimes(profileFile, n, (frame) => area(frame.functionName, frame.url), window);
}

/** The newest profile a process wrote into `dir`, if any. */
export function newestProfile(dir: string): string | undefined {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f));
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}
