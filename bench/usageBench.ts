import { COUNTER_MODELS, ROLLUP_STATE_ID, UsageRollupState } from '../core/usage/models';
import { bucketStart, counterRowId, DAY_MS, HOUR_MS, MINUTE_MS, operationKey, type BucketSize } from '../core/usage/usageBuckets';
import { UsageCounters, USAGE_FLUSH_EVERY_MS } from '../core/usage/usageCounters';
import { HOUR_RETENTION_MS, MINUTE_RETENTION_MS, rollupMarks } from '../core/usage/usageRollup';
import { processCpuSeconds } from './processCpu';

/**
 * The usage half of bench/api.ts: an organization's counter rows as a year of steady traffic
 * leaves them, and the CPU the counters cost per request, apart from the API process.
 */

/** The operations a busy organization uses every minute. */
const BUSY_OPERATIONS = [
  'candidates.search',
  'profiles.unlock',
  'person_matches.create',
  'contact_retrieval_jobs.create',
  'contact_retrieval_jobs.get',
  'whoami',
];

function rowAt(orgId: string, start: number, scale: number) {
  const ops: Record<string, Record<string, number>> = {};
  for (const [i, op] of BUSY_OPERATIONS.entries()) {
    const n = scale * (i + 1);
    ops[operationKey(op)] = { success: n, client_error: Math.floor(n / 20), rate_limited: Math.floor(n / 50), server_error: 0, credits: n };
  }
  return { _id: counterRowId(orgId, start), orgId, start: new Date(start), ops };
}

async function insertRows(size: BucketSize, rows: ReturnType<typeof rowAt>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) await COUNTER_MODELS[size].collection.insertMany(rows.slice(i, i + 1000) as never[], { ordered: false });
}

/**
 * Rows of an organization busy every minute for a year, as the roll-up leaves them at `nowMs`:
 * a minute row for each minute of the last 48 hours, an hour row for each hour of the last 100
 * days, a day row for each folded day; and the roll-up marks that go with them. Returns the count.
 */
export async function seedYearOfUsage(orgId: string, nowMs: number): Promise<number> {
  const marks = rollupMarks(nowMs);
  const minutes = [];
  for (let t = bucketStart('minute', nowMs - MINUTE_RETENTION_MS); t <= nowMs; t += MINUTE_MS) minutes.push(rowAt(orgId, t, 1));
  const hours = [];
  for (let t = bucketStart('hour', nowMs - HOUR_RETENTION_MS); t < marks.hoursUntil; t += HOUR_MS) hours.push(rowAt(orgId, t, 60));
  const days = [];
  for (let t = marks.daysUntil - 365 * DAY_MS; t < marks.daysUntil; t += DAY_MS) days.push(rowAt(orgId, t, 1440));
  await insertRows('minute', minutes);
  await insertRows('hour', hours);
  await insertRows('day', days);
  await UsageRollupState.updateOne(
    { _id: ROLLUP_STATE_ID },
    { $set: { hoursUntil: new Date(marks.hoursUntil), daysUntil: new Date(marks.daysUntil) } },
    { upsert: true },
  );
  return minutes.length + hours.length + days.length;
}

/**
 * CPU per request of the counters alone, as the API runs them: `requests` counted over the
 * organizations in turn on a clock advancing `ratePerSecond`, a flush every USAGE_FLUSH_EVERY_MS
 * of that clock (one upsert per organization and minute). This process's CPU plus the store's.
 */
export async function measureCounterCpu(
  orgIds: readonly string[],
  requests: number,
  ratePerSecond: number,
  storePid: number | undefined,
): Promise<{ processSeconds: number; storeSeconds: number | undefined; upserts: number }> {
  let clock = Date.now();
  const counters = new UsageCounters({ now: () => clock });
  const perFlush = Math.max(1, Math.round((ratePerSecond * USAGE_FLUSH_EVERY_MS) / 1000));
  let upserts = 0;
  const storeBefore = processCpuSeconds(storePid);
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    counters.countRequest(orgIds[i % orgIds.length], 'whoami', 200, 0);
    clock += 1000 / ratePerSecond;
    if ((i + 1) % perFlush === 0) {
      upserts += counters.pendingRows().length;
      await counters.flush();
    }
  }
  upserts += counters.pendingRows().length;
  await counters.flush();
  const cpu = process.cpuUsage(cpuBefore);
  const storeAfter = processCpuSeconds(storePid);
  return {
    processSeconds: (cpu.user + cpu.system) / 1e6,
    storeSeconds: storeBefore === undefined || storeAfter === undefined ? undefined : storeAfter - storeBefore,
    upserts,
  };
}

/** Sorted latencies' `q` quantile (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
