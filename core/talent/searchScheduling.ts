import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { SearchOutcome, SearchScan } from './candidateSearch';

/**
 * How a replica runs search scans so that none can stall it for other tenants:
 * - each scan visits at most `budget` candidates (SEARCH_SCAN_BUDGET), then answers with what
 *   it found and an extrapolated total;
 * - it runs in slices of SLICE_VISITS, yielding to the event loop between them, so other
 *   requests are served while a long scan runs;
 * - an organization's scans run one at a time on a replica, so many concurrent searches of one
 *   organization take one share of the processor, not one share each.
 */
export const SLICE_VISITS = 10_000;

const queues = new Map<string, Promise<unknown>>();

function oneAtATime<T>(orgId: string, fn: () => Promise<T>): Promise<T> {
  const previous = queues.get(orgId) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(orgId, settled);
  void settled.then(() => {
    if (queues.get(orgId) === settled) queues.delete(orgId);
  });
  return run;
}

export function runScan(orgId: string, scan: SearchScan, budget: number): Promise<SearchOutcome> {
  return oneAtATime(orgId, async () => {
    while (!scan.step(Math.min(SLICE_VISITS, budget - scan.visited)) && scan.visited < budget) await yieldToEventLoop();
    return scan.outcome();
  });
}
