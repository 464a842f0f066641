import { Transform, pipeline, type Readable } from 'node:stream';
import { retryLater, type Problem } from '../../core/problems';

/**
 * How fast one organization's console reads may run on one API replica, beside the slots that
 * bound how many run at once (core/limits/consoleReadSlots.ts). A list page costs the API and
 * the store tens of milliseconds of CPU and an export a few seconds, so slots alone let one
 * organization that resends at once keep this machine's cores busy and slow every other
 * organization's requests. The pace bounds the CPU one organization's console reads take: its
 * list pages start at most LIST_PAGES_PER_SECOND a second once a burst of LIST_PAGE_BURST is
 * spent (a person, or a few, paging through lists never meets it), and its exports together send
 * at most EXPORT_BYTES_PER_SECOND. Both are counted in this replica's memory, with no store
 * operation, because what they protect (this replica's CPU and its share of the store) is per
 * replica.
 */
export const LIST_PAGES_PER_SECOND = 2;
export const LIST_PAGE_BURST = 20;
/**
 * About 450 audit or 500 ledger rows a second: a 20,000-entry log downloads in under a minute. The
 * local store decodes each row it returns, so this rate is what an organization's exports cost
 * the store, which every other organization's requests wait on.
 */
export const EXPORT_BYTES_PER_SECOND = 64 * 1024;
/** What an export sends before the pace applies, so a small download is never delayed. */
const EXPORT_BURST_BYTES = 64 * 1024;
/**
 * Rows (or, for a filter the store applies, entry numbers) an organization's exports read from
 * the store a second, after a first EXPORT_BURST_ROWS. The byte pace alone would leave an export
 * whose filter matches nothing free to read the whole log or ledger at once: it sends no bytes,
 * yet the store reads and decodes every row it looks at.
 */
export const EXPORT_ROWS_READ_PER_SECOND = 500;
const EXPORT_BURST_ROWS = 500;
/** Organizations remembered at once; past it the memos are pruned of those whose pace has run out. */
const ORGANIZATIONS = 10_000;

/** The refusal of a list page past LIST_PAGES_PER_SECOND: 429 `rate_limited`. */
export function listPagesTooFast(): Problem {
  return retryLater(
    'rate_limited',
    `Your organization's people are opening more than ${LIST_PAGES_PER_SECOND} console lists a second; try again in a moment.`,
    1,
    { extensions: { limit: 'console_lists_per_second' } },
  );
}

export type Wait = (ms: number) => Promise<void>;

const timerWait: Wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class ConsoleReadsPace {
  /** When each organization's list pages will have their whole burst back, in ms of `now`. */
  private readonly listFullAt = new Map<string, number>();
  /** When each organization's exports may send their next byte, in ms of `now`. */
  private readonly exportFreeAt = new Map<string, number>();
  /** When each organization's exports may read their next row, in ms of `now`. */
  private readonly exportReadFreeAt = new Map<string, number>();

  constructor(
    private readonly now: () => number,
    private readonly wait: Wait = timerWait,
  ) {}

  /** True when the organization has no list page left to start on this replica now. */
  listPagesSpent(orgId: string): boolean {
    return this.listPagesLeft(orgId, this.now()) < 1;
  }

  /**
   * Takes one of the organization's list pages now, if it has one left: checked and counted in
   * one step, so requests that asked in the same moment cannot all take the last one.
   */
  takeListPage(orgId: string): boolean {
    if (this.listPagesSpent(orgId)) return false;
    this.startListPage(orgId);
    return true;
  }

  /** Gives back a page taken by `takeListPage` that did not run (refused by the limits after it). */
  giveBackListPage(orgId: string): void {
    const fullAt = this.listFullAt.get(orgId);
    if (fullAt !== undefined) this.listFullAt.set(orgId, fullAt - 1000 / LIST_PAGES_PER_SECOND);
  }

  /** Counts a list page the organization starts now. */
  private startListPage(orgId: string): void {
    const now = this.now();
    const left = this.listPagesLeft(orgId, now) - 1;
    if (this.listFullAt.size >= ORGANIZATIONS) prune(this.listFullAt, now);
    this.listFullAt.set(orgId, now + ((LIST_PAGE_BURST - left) * 1000) / LIST_PAGES_PER_SECOND);
  }

  /**
   * How long the organization's exports wait before sending `bytes` more: each byte takes its
   * turn after those already sent or waiting, at EXPORT_BYTES_PER_SECOND, with
   * EXPORT_BURST_BYTES that need not wait.
   */
  exportDelayMs(orgId: string, bytes: number): number {
    return this.turnDelayMs(this.exportFreeAt, orgId, bytes, EXPORT_BYTES_PER_SECOND, EXPORT_BURST_BYTES);
  }

  /** How long the organization's exports wait before reading `rows` more from the store (EXPORT_ROWS_READ_PER_SECOND). */
  exportReadDelayMs(orgId: string, rows: number): number {
    return this.turnDelayMs(this.exportReadFreeAt, orgId, rows, EXPORT_ROWS_READ_PER_SECOND, EXPORT_BURST_ROWS);
  }

  /** What an export of the organization awaits before each read of the store: its turn for that many rows. */
  exportReadTurn(orgId: string): (rows: number) => Promise<void> {
    return async (rows) => {
      const delay = this.exportReadDelayMs(orgId, rows);
      if (delay > 0) await this.wait(delay);
    };
  }

  /** Each unit takes its turn after those already taken, at `perSecond`, with `burst` units that need not wait. */
  private turnDelayMs(freeAtOf: Map<string, number>, orgId: string, units: number, perSecond: number, burst: number): number {
    const now = this.now();
    const freeAt = Math.max(freeAtOf.get(orgId) ?? 0, now - (burst * 1000) / perSecond);
    if (freeAtOf.size >= ORGANIZATIONS) prune(freeAtOf, now);
    freeAtOf.set(orgId, freeAt + (units * 1000) / perSecond);
    return Math.max(0, freeAt - now);
  }

  /** `body` as the organization's exports may send it: each chunk waits for its turn (exportDelayMs). */
  pacedExport(orgId: string, body: Readable): Readable {
    const delayOf = (bytes: number) => this.exportDelayMs(orgId, bytes);
    const wait = this.wait;
    const paced = new Transform({
      transform(chunk: Buffer | string, _encoding, done) {
        const delay = delayOf(Buffer.byteLength(chunk));
        if (delay <= 0) return done(null, chunk);
        wait(delay).then(() => done(null, chunk), done);
      },
    });
    // An error of the source ends the paced stream with it; an abandoned download ends both.
    return pipeline(body, paced, () => undefined);
  }

  /** List pages the organization may start at `now`: the burst, less those whose turn has not come back. */
  private listPagesLeft(orgId: string, now: number): number {
    const fullAt = this.listFullAt.get(orgId) ?? 0;
    return LIST_PAGE_BURST - Math.max(0, ((fullAt - now) * LIST_PAGES_PER_SECOND) / 1000);
  }
}

/** Forgets the organizations whose pace has run out by `now`. */
function prune(until: Map<string, number>, now: number): void {
  for (const [orgId, at] of until) if (at <= now) until.delete(orgId);
}
