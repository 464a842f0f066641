import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Turns } from '../inTurn';
import type { SearchOutcome, SearchScan } from './rankCandidates';

/**
 * How a replica runs search scans so that none can stall it for other tenants:
 * - each scan visits at most `budget` candidates (SEARCH_SCAN_BUDGET), then answers with what
 *   it found and an extrapolated total;
 * - it runs in slices of SLICE_VISITS, yielding to the event loop between them, so other
 *   requests are served while a long scan runs;
 * - an organization's scans run one at a time on a replica (in the app's `turns`), so many
 *   concurrent searches of one organization take one share of the processor, not one share each.
 */
export const SLICE_VISITS = 10_000;

export function runScan(turns: Turns, orgId: string, scan: SearchScan, budget: number): Promise<SearchOutcome> {
  return turns.inTurn(`search:${orgId}`, async () => {
    while (!scan.step(Math.min(SLICE_VISITS, budget - scan.visited)) && scan.visited < budget) await yieldToEventLoop();
    return scan.outcome();
  });
}
