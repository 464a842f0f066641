import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) a process has spent so far, read from /proc as an outside
 * observer would; undefined when the process is not visible (another machine, not Linux).
 */
export function processCpuSeconds(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return (utime + stime) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** CPU seconds several processes spend while `work` runs, by name. */
export async function measureCpu<T>(
  pids: Record<string, number | undefined>,
  work: () => Promise<T>,
): Promise<{ result: T; cpuSeconds: Record<string, number | undefined> }> {
  const before = Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, processCpuSeconds(pid)]));
  const result = await work();
  const cpuSeconds = Object.fromEntries(
    Object.entries(pids).map(([k, pid]) => {
      const a = before[k];
      const b = processCpuSeconds(pid);
      return [k, a === undefined || b === undefined ? undefined : b - a];
    }),
  );
  return { result, cpuSeconds };
}

/**
 * Waits until the processes spend less than `share` of a core (an API still working through
 * requests a previous measurement left behind would steal the next one's CPU); at most `maxMs`.
 */
export async function waitUntilQuiet(pids: Array<number | undefined>, share = 0.05, maxMs = 120_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  const total = () => pids.reduce((sum: number, pid) => sum + (processCpuSeconds(pid) ?? 0), 0);
  while (Date.now() < deadline) {
    const before = total();
    await new Promise((r) => setTimeout(r, 500));
    if (total() - before < share * 0.5) return;
  }
}

/** CPU seconds per named process between two snapshots, scaled per 1,000 events. */
export function cpuPerThousand(before: Record<string, number>, after: Record<string, number>, events: number): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((k) => [k, +(((after[k] - (before[k] ?? 0)) * 1000) / events).toFixed(2)]));
}
