import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The parts of a V8 CPU profile (`node --cpu-prof`) read here. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

export interface TopCost {
  /** Function and where it is: a file of this repository, a package, or a V8 / node internal. */
  name: string;
  /** Share of the busy (non-idle) samples spent in it, self time. */
  share: number;
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

/** The `n` functions with the most self time in a profile, as shares of its busy time. */
export function topCosts(profileFile: string, n = 12): TopCost[] {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<string, number>();
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    if (!frame || NOT_WORK.has(frame.functionName)) return;
    const where = place(frame.url, frame.lineNumber);
    const name = `${frame.functionName || '(anonymous)'}${where ? ` (${where})` : ''}`;
    const dt = profile.timeDeltas[i] ?? 0;
    self.set(name, (self.get(name) ?? 0) + dt);
    busy += dt;
  });
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, t]) => ({ name, share: busy ? t / busy : 0 }));
}

/** The newest profile a process wrote into `dir`, if any. */
export function newestProfile(dir: string): string | undefined {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(dir, f));
  return files.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0];
}
