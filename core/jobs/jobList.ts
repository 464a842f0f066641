import type { KeyPrincipal } from '../keys/apiKeys';
import { cursorId, cursorIndex, cursorInstant, decodeListCursor, encodeListCursor, invalidCursor, listCursorPosition, type CursorKey } from '../pageCursor';
import { jobView, type JobView } from './contactRetrievalJobs';
import type { JobStatus } from './jobTypes';
import { jobSlotHolders } from './jobSlots';
import { JOB_LIST_WINDOW, type JobDoc, type JobStores } from './store';

/**
 * The jobs list of a workspace, newest first (GET /v1/contact-retrieval-jobs and the console's
 * Jobs page). Jobs are numbered per workspace in acceptance order (store.ts), so a page is read
 * by the numbers just below the head. A status filter walks down the numbers in windows and
 * stops after MAX_SCANNED_PER_PAGE of them: a rare status then answers a shorter page whose
 * cursor goes on from there. Running jobs are read through the organization's running-job
 * slots instead (at most RUNNING_JOB_SLOTS). Jobs accepted before numbering existed follow the
 * numbered ones, oldest last.
 */
export interface JobPage {
  data: JobView[];
  next_cursor: string | null;
}

/** A page of the list as the workspace's job records, for a reader that shows more than a job's view (the console). */
export interface JobRecordPage {
  jobs: JobDoc[];
  next_cursor: string | null;
}

/** Numbers one page request looks at, at most. */
export const MAX_SCANNED_PER_PAGE = 2_000;

/** Where the next page starts: at number `n` (inclusive; 0 is below the numbered jobs), or after the unnumbered job at (`t`, `id`). */
type Position = { n: number } | { t: Date; id: string };

function decodePosition(cursorKey: CursorKey, cursor: string, scope: string): Position {
  const p = listCursorPosition(cursorKey, cursor, scope);
  if (!p) throw invalidCursor();
  if ('n' in p) return decodeListCursor<{ n: number }>(cursorKey, cursor, scope, { n: cursorIndex });
  return decodeListCursor<{ t: Date; id: string }>(cursorKey, cursor, scope, { t: cursorInstant, id: cursorId });
}

const timePosition = (job: JobDoc) => ({ t: job.createdAt.getTime(), id: job._id });

export async function listContactRetrievalJobs(
  stores: JobStores,
  cursorKey: CursorKey,
  principal: KeyPrincipal,
  q: { status?: JobStatus; limit: number; cursor?: string },
): Promise<JobPage> {
  const found = await listJobRecords(stores, cursorKey, principal, q);
  return { data: await Promise.all(found.jobs.map((d) => jobView(stores, d))), next_cursor: found.next_cursor };
}

export async function listJobRecords(
  stores: JobStores,
  cursorKey: CursorKey,
  principal: KeyPrincipal,
  q: { status?: JobStatus; limit: number; cursor?: string },
): Promise<JobRecordPage> {
  const where = { orgId: principal.orgId, workspaceId: principal.workspaceId };
  const scope = `jobs:${principal.orgId}:${principal.workspaceId}:${q.status ?? '*'}`;
  const at = q.cursor !== undefined ? decodePosition(cursorKey, q.cursor, scope) : undefined;
  const page = (jobs: JobDoc[], next: Record<string, string | number> | null): JobRecordPage => ({
    jobs,
    next_cursor: next ? encodeListCursor(cursorKey, scope, next) : null,
  });

  if (q.status === 'running') {
    const after = at && 't' in at ? at : undefined;
    if (at && !after) return page([], null);
    const docs = (await runningJobsOf(stores, principal.orgId))
      .filter((j) => j.workspaceId === principal.workspaceId)
      .sort(newestFirst)
      .filter((j) => !after || newestFirst(j, { createdAt: after.t, _id: after.id }) > 0);
    const shown = docs.slice(0, q.limit);
    return page(shown, docs.length > q.limit ? timePosition(shown[shown.length - 1]) : null);
  }

  const head = await stores.jobs.jobListHead(principal.workspaceId);
  const rows: JobDoc[] = [];
  let next = at === undefined ? head.seq : 'n' in at ? Math.min(at.n, head.seq) : 0;
  let scanned = 0;
  // Filtered, the first window is a few pages' worth; the next ones are sized by how often the
  // status came up so far (each number read costs the store, whether it matches or not).
  let window = Math.min(JOB_LIST_WINDOW, 4 * (q.limit + 1));
  while (next > 0 && rows.length <= q.limit && scanned < MAX_SCANNED_PER_PAGE) {
    // Unfiltered, the page's own numbers and one more (to know whether another page follows).
    const size = Math.min(q.status ? window : q.limit + 1 - rows.length, MAX_SCANNED_PER_PAGE - scanned);
    const to = Math.max(1, next - size + 1);
    rows.push(...(await stores.jobs.numberedJobs(where, next, to, q.status)));
    scanned += next - to + 1;
    next = to - 1;
    const rate = rows.length / scanned;
    const wanted = rate > 0 ? Math.ceil(((q.limit + 1 - rows.length) / rate) * 1.25) : window * 4;
    window = Math.min(JOB_LIST_WINDOW, Math.max(q.limit + 1, wanted));
  }
  if (rows.length > q.limit) {
    const shown = rows.slice(0, q.limit);
    return page(shown, { n: shown[shown.length - 1].seq! - 1 });
  }
  if (next > 0) return page(rows, { n: next });
  if (!head.legacy) return page(rows, null);

  // Below the numbered jobs: those accepted before numbering, by time.
  const room = q.limit - rows.length;
  const after = at && 't' in at ? at : undefined;
  const older = await stores.jobs.jobsByTime(where, { status: q.status, unnumbered: true, after, limit: room + 1 });
  const shown = [...rows, ...older.slice(0, room)];
  if (older.length <= room) return page(shown, null);
  const last = shown[shown.length - 1];
  return page(shown, last.seq !== undefined ? { n: 0 } : timePosition(last));
}

/** Newest first by acceptance time, then id (the order of jobs without a number). */
function newestFirst(a: Pick<JobDoc, 'createdAt' | '_id'>, b: Pick<JobDoc, 'createdAt' | '_id'>): number {
  return b.createdAt.getTime() - a.createdAt.getTime() || (a._id < b._id ? 1 : a._id > b._id ? -1 : 0);
}

/**
 * The organization's running jobs: those holding its running-job slots (a job claims one
 * before it is recorded and frees it after it finished).
 * FerretDB: a status query read every job of the organization (the status is not selective in
 * its index), the slots are a few documents read by the organization.
 */
async function runningJobsOf(stores: JobStores, orgId: string): Promise<JobDoc[]> {
  const holders = await jobSlotHolders(stores, orgId);
  return (await stores.jobs.jobsByIds(holders.map((h) => h.jobId))).filter((j) => j.status === 'running' && j.orgId === orgId);
}

/** How many of the organization's jobs are running now (at most RUNNING_JOB_SLOTS). */
export async function runningJobCount(stores: JobStores, orgId: string): Promise<number> {
  return (await runningJobsOf(stores, orgId)).length;
}
