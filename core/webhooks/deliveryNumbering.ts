/**
 * How a workspace's delivery attempts are read newest first without a sorted query: each attempt
 * is numbered in its workspace (1, 2, …) and the number is in its id, so a page is a read of the
 * ids just below a position (`_id: {$in}`), the one look-up of several values the local store
 * (FerretDB 1.x over SQLite) answers from an index; a sorted query there reads and sorts every
 * attempt of the workspace first (about 24 s at 100,000). Highest number is newest.
 */
export function deliveryIdOf(workspaceId: string, seq: number): string {
  return `dlv_${workspaceId.replace(/^ws_/, '')}_${seq}`;
}

/** Numbers read per store query at most. */
export const WINDOW = 250;
/** Numbers one page request looks at, at most: a rare filter answers a shorter page with a cursor to go on instead of reading the whole history. */
export const MAX_SCANNED_PER_PAGE = 2_000;

/** A walk down the numbers: the highest not read yet, and how many were read. */
export interface Walk {
  top: number;
  scanned: number;
}

export const walkFrom = (top: number): Walk => ({ top: Math.max(0, top), scanned: 0 });

/**
 * The numbers of the next read, highest first, or none when the walk is over (below 1, or the
 * page's budget spent): first the rows still wanted, then as many as were read so far, up to a
 * window. A number taken by a write that failed, a purged record or a filter's misses leave
 * holes, so the reads grow with what was read; the local store decodes every record it returns,
 * so a common filter (most attempts `failed`) reads no more than it needs.
 */
export function nextWindow(walk: Walk, wanted: number): number[] {
  if (walk.top < 1 || walk.scanned >= MAX_SCANNED_PER_PAGE) return [];
  const size = Math.min(Math.max(wanted, walk.scanned, 1), WINDOW, MAX_SCANNED_PER_PAGE - walk.scanned, walk.top);
  return Array.from({ length: size }, (_, i) => walk.top - i);
}

export function advance(walk: Walk, window: readonly number[]): Walk {
  return { top: walk.top - window.length, scanned: walk.scanned + window.length };
}

/**
 * Where the page after this one starts (it reads the numbers at or below it): just below the
 * last row shown when more rows were found than the page holds, else below what was read. 0
 * means every numbered record was read.
 */
export function nextBelow(foundSeqs: readonly number[], limit: number, walk: Walk): number {
  if (foundSeqs.length > limit) return foundSeqs[limit - 1] - 1;
  return Math.max(0, walk.top);
}
