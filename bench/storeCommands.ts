import { debugAddress } from './storeCpuProfile';

/**
 * The wire-protocol commands the local store (FerretDB) answered, by name, read from the
 * Prometheus counters it serves on its `--debug-addr`. The store's cost is mostly per command, not
 * per document in it, so commands per request is the request path's store cost in a figure a
 * loaded machine does not change much (CPU seconds and latencies it does).
 */
export async function storeCommandCounts(pid: number | undefined): Promise<Record<string, number> | undefined> {
  const addr = pid === undefined ? undefined : debugAddress(pid);
  if (!addr) return undefined;
  try {
    const res = await fetch(`http://${addr}/debug/metrics`);
    if (!res.ok) return undefined;
    return parseRequestCounters(await res.text());
  } catch {
    return undefined;
  }
}

const REQUESTS = /^ferretdb_client_requests_total\{([^}]*)\}\s+([\d.e+]+)$/;

/** `ferretdb_client_requests_total` by its `command` label. */
export function parseRequestCounters(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const m = REQUESTS.exec(line.trim());
    const command = m && /command="([^"]*)"/.exec(m[1])?.[1];
    if (m && command) counts[command] = (counts[command] ?? 0) + Number(m[2]);
  }
  return counts;
}

/** Commands answered between two readings, per 1,000 of `events`, the busiest first; those under 1 left out. */
export function commandsPerThousand(before: Record<string, number>, after: Record<string, number>, events: number): Array<[string, number]> {
  if (!events) return [];
  return Object.entries(after)
    .map(([k, v]): [string, number] => [k, ((v - (before[k] ?? 0)) / events) * 1000])
    .filter(([, v]) => v >= 1)
    .sort((a, b) => b[1] - a[1]);
}
