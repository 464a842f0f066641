import type { Logger } from '../observability/logger';
import type { UsageStores } from './store';
import { outcomeClass } from './outcomeClass';
import { addTally, bucketStart, counterRowId, emptyTally, operationKey, tallyName, type Tally } from './usageBuckets';

/** How often a process writes the minutes that have ended. */
export const USAGE_FLUSH_EVERY_MS = 5_000;
/** Rows written at once by a flush. */
const FLUSH_PARALLELISM = 16;

interface PendingMinute {
  orgId: string;
  start: number;
  ops: Map<string, Tally>;
}

export interface UsageCountersOptions {
  /** The clock that puts a count in its minute; tests inject one. */
  now?: () => number;
  flushEveryMs?: number;
  /** The root's logger: a failed write is logged there. */
  logger: Logger;
}

/**
 * A process's usage counters, kept as the work happens: per organization, operation and UTC
 * minute, requests by outcome class and credits charged, added up in memory. Every few seconds
 * the minutes that have ended are written, each organization's into its hour row in one upsert,
 * so a row gets at most one write per organization and minute from a process, whatever the
 * number of requests or operations; the minute under way waits until it ends (or the process
 * stops). Built by the composition root (api/server.ts, worker/createWorker.ts) and passed
 * down, so two apps in one process count apart. A write that fails keeps its counts for the next.
 */
export class UsageCounters {
  private pending = new Map<string, PendingMinute>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private readonly now: () => number;
  private readonly flushEveryMs: number;
  private readonly logger: Logger;

  constructor(
    private readonly stores: UsageStores,
    options: UsageCountersOptions,
  ) {
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.flushEveryMs = options.flushEveryMs ?? USAGE_FLUSH_EVERY_MS;
  }

  /**
   * One answered request of `operation` with `status`, and the credits it charged (0 on a replay
   * or a refusal); `application`: the grant id of the connected AI application that made it.
   */
  countRequest(orgId: string, operation: string, status: number, credits: number, application?: string): void {
    const tally = this.tallyOf(orgId, tallyName(operation, application), bucketStart('minute', this.now()));
    const outcome = outcomeClass(status);
    if (outcome) tally[outcome] += 1;
    tally.credits += credits;
  }

  /** Credits charged by work that is no request of its own (a job's chunk, charged by the worker). */
  countCredits(orgId: string, operation: string, credits: number): void {
    if (credits === 0) return;
    this.tallyOf(orgId, operation, bucketStart('minute', this.now())).credits += credits;
  }

  private tallyOf(orgId: string, operation: string, minute: number): Tally {
    const id = `${orgId}|${minute}`;
    let row = this.pending.get(id);
    if (!row) {
      row = { orgId, start: minute, ops: new Map() };
      this.pending.set(id, row);
    }
    let tally = row.ops.get(operation);
    if (!tally) {
      tally = emptyTally();
      row.ops.set(operation, tally);
    }
    return tally;
  }

  /** What is counted and not yet written, per organization and minute (tests, diagnostics). */
  pendingMinutes(): Array<{ orgId: string; start: Date; ops: Record<string, Tally> }> {
    return [...this.pending.values()].map((r) => ({
      orgId: r.orgId,
      start: new Date(r.start),
      ops: Object.fromEntries([...r.ops].map(([op, t]) => [op, { ...t }])),
    }));
  }

  /**
   * Writes the minutes that have ended, or with `all` every count so far (shutdown, tests).
   * Calls queue, so a caller's counts are written when it resolves.
   */
  flush(options: { all?: boolean } = {}): Promise<void> {
    this.flushing = this.flushing.then(() => this.write(options.all ? Infinity : bucketStart('minute', this.now())));
    return this.flushing;
  }

  private async write(before: number): Promise<void> {
    const due = new Map<string, { orgId: string; hour: number; minutes: PendingMinute[] }>();
    for (const [id, minute] of this.pending) {
      if (minute.start >= before) continue;
      this.pending.delete(id);
      const hour = bucketStart('hour', minute.start);
      const rowId = counterRowId(minute.orgId, hour);
      const row = due.get(rowId) ?? { orgId: minute.orgId, hour, minutes: [] };
      row.minutes.push(minute);
      due.set(rowId, row);
    }
    const rows = [...due.entries()];
    for (let i = 0; i < rows.length; i += FLUSH_PARALLELISM) {
      await Promise.all(
        rows.slice(i, i + FLUSH_PARALLELISM).map(async ([id, row]) => {
          try {
            await upsertHour(this.stores, id, row.orgId, row.hour, row.minutes);
          } catch (err) {
            this.logger.warn({ err, org_id: row.orgId }, 'writing usage counters failed; they are kept for the next flush');
            for (const m of row.minutes) for (const [op, t] of m.ops) addTally(this.tallyOf(m.orgId, op, m.start), t);
          }
        }),
      );
    }
  }

  /** Flushes every few seconds until `stop`; the timer never keeps the process alive. */
  start(): this {
    if (!this.timer) {
      this.timer = setInterval(() => void this.flush(), this.flushEveryMs);
      this.timer.unref();
    }
    return this;
  }

  /** Stops the timer and writes everything left, the minute under way included (shutdown). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush({ all: true });
  }
}

function incrementsOf(minutes: readonly PendingMinute[]): Record<string, number> {
  const inc: Record<string, number> = {};
  for (const minute of minutes) {
    for (const [operation, tally] of minute.ops) {
      const key = operationKey(operation);
      for (const [field, n] of Object.entries(tally)) if (n !== 0) inc[`ops.${key}.${field}`] = (inc[`ops.${key}.${field}`] ?? 0) + n;
    }
  }
  return inc;
}

async function upsertHour(stores: UsageStores, id: string, orgId: string, hour: number, minutes: readonly PendingMinute[]): Promise<void> {
  const inc = incrementsOf(minutes);
  if (Object.keys(inc).length === 0) return;
  await stores.usage.addToHourRow(id, orgId, new Date(hour), inc);
}
