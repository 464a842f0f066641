import { readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux only; NaN elsewhere),
 * to tell which process an event's work lands on: Temporal, the store, the workers, the receiver.
 */
const TICKS_PER_SECOND = 100;

export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at state, field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/** CPU seconds per named process between two snapshots, scaled per 1,000 events. */
export function cpuPerThousand(before: Record<string, number>, after: Record<string, number>, events: number): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((k) => [k, +(((after[k] - (before[k] ?? 0)) * 1000) / events).toFixed(2)]));
}
