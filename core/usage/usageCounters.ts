import { logger } from '../observability/logger';
import { COUNTER_MODELS } from './models';
import { outcomeClass } from './outcomeClass';
import { addTally, bucketStart, counterRowId, emptyTally, operationKey, type Tally } from './usageBuckets';

/** How often a process writes what it counted: late enough to batch, early enough for the roll-up's lag (usageRollup.ts). */
export const USAGE_FLUSH_EVERY_MS = 5_000;
/** Rows written at once by a flush. */
const FLUSH_PARALLELISM = 16;

interface PendingRow {
  orgId: string;
  start: number;
  ops: Map<string, Tally>;
}

export interface UsageCountersOptions {
  /** The clock that puts a count in its minute; tests inject one. */
  now?: () => number;
  flushEveryMs?: number;
}

/**
 * A process's usage counters, kept as the work happens: per organization, operation and UTC
 * minute, requests by outcome class and credits charged, added up in memory and written every
 * few seconds (and on stop) as one upsert per organization and minute, whatever the number of
 * requests or operations in it. Built by the composition root (api/server.ts, worker/createWorker.ts)
 * and passed down, so two apps in one process count apart. A flush that fails keeps its counts
 * for the next one.
 */
export class UsageCounters {
  private pending = new Map<string, PendingRow>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly now: () => number;
  private readonly flushEveryMs: number;

  constructor(options: UsageCountersOptions = {}) {
    this.now = options.now ?? Date.now;
    this.flushEveryMs = options.flushEveryMs ?? USAGE_FLUSH_EVERY_MS;
  }

  /** One answered request of `operation` with `status`, and the credits it charged (0 on a replay or a refusal). */
  countRequest(orgId: string, operation: string, status: number, credits: number): void {
    const tally = this.tallyOf(orgId, operation, this.now());
    const outcome = outcomeClass(status);
    if (outcome) tally[outcome] += 1;
    tally.credits += credits;
  }

  /** Credits charged by work that is no request of its own (a job's chunk, charged by the worker). */
  countCredits(orgId: string, operation: string, credits: number): void {
    if (credits === 0) return;
    this.tallyOf(orgId, operation, this.now()).credits += credits;
  }

  private tallyOf(orgId: string, operation: string, atMs: number): Tally {
    const start = bucketStart('minute', atMs);
    const id = counterRowId(orgId, start);
    let row = this.pending.get(id);
    if (!row) {
      row = { orgId, start, ops: new Map() };
      this.pending.set(id, row);
    }
    let tally = row.ops.get(operation);
    if (!tally) {
      tally = emptyTally();
      row.ops.set(operation, tally);
    }
    return tally;
  }

  /** What is counted and not yet written, as the minute rows a flush would add (tests, diagnostics). */
  pendingRows(): Array<{ orgId: string; start: Date; ops: Record<string, Tally> }> {
    return [...this.pending.values()].map((r) => ({
      orgId: r.orgId,
      start: new Date(r.start),
      ops: Object.fromEntries([...r.ops].map(([op, t]) => [op, { ...t }])),
    }));
  }

  /** Writes every count so far; concurrent calls queue, so a caller's counts are written when it resolves. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writePending());
    return this.flushing;
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const rows = [...this.pending.entries()];
    this.pending = new Map();
    for (let i = 0; i < rows.length; i += FLUSH_PARALLELISM) {
      await Promise.all(
        rows.slice(i, i + FLUSH_PARALLELISM).map(async ([id, row]) => {
          try {
            await upsertRow(id, row);
          } catch (err) {
            logger.warn({ err, org_id: row.orgId }, 'writing usage counters failed; they are kept for the next flush');
            this.restore(row);
          }
        }),
      );
    }
  }

  private restore(row: PendingRow): void {
    for (const [operation, tally] of row.ops) addTally(this.tallyOf(row.orgId, operation, row.start), tally);
  }

  /** Flushes every few seconds until `stop`; the timer never keeps the process alive. */
  start(): this {
    if (!this.timer) {
      this.timer = setInterval(() => void this.flush(), this.flushEveryMs);
      this.timer.unref();
    }
    return this;
  }

  /** Stops the timer and writes what is left (shutdown). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
  }
}

function incrementsOf(row: PendingRow): Record<string, number> {
  const inc: Record<string, number> = {};
  for (const [operation, tally] of row.ops) {
    const key = operationKey(operation);
    for (const [field, n] of Object.entries(tally)) if (n !== 0) inc[`ops.${key}.${field}`] = n;
  }
  return inc;
}

async function upsertRow(id: string, row: PendingRow): Promise<void> {
  const inc = incrementsOf(row);
  if (Object.keys(inc).length === 0) return;
  const update = { $inc: inc, $setOnInsert: { orgId: row.orgId, start: new Date(row.start) } };
  try {
    await COUNTER_MODELS.minute.collection.updateOne({ _id: id as never }, update, { upsert: true });
  } catch (err) {
    // Two processes inserting the same new row: one wins, the other's upsert is now an update.
    if ((err as { code?: number }).code !== 11000) throw err;
    await COUNTER_MODELS.minute.collection.updateOne({ _id: id as never }, update, { upsert: true });
  }
}
