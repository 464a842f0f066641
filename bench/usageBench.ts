import type { UsageStores } from '../core/usage/store';
import { bucketStart, counterRowId, DAY_MS, HOUR_MS, monthStart, operationKey, packTallies, type Tally } from '../core/usage/usageBuckets';
import { UsageCounters, USAGE_FLUSH_EVERY_MS } from '../core/usage/usageCounters';
import { dayField, HOUR_RETENTION_MS, rollupMarks } from '../core/usage/usageRollup';
import { processCpuSeconds } from './processCpu';
import { createLogger } from '../core/observability/logger';

/**
 * The usage half of bench/api.ts: an organization's counter rows as a year of steady traffic
 * leaves them, and the CPU the counters cost per request, apart from the API process.
 */

/** The operations a busy organization uses every hour. */
const BUSY_OPERATIONS = [
  'candidates.search',
  'profiles.unlock',
  'person_matches.create',
  'contact_retrieval_jobs.create',
  'contact_retrieval_jobs.get',
  'whoami',
];

function tallies(scale: number): Record<string, Tally> {
  const ops: Record<string, Tally> = {};
  for (const [i, op] of BUSY_OPERATIONS.entries()) {
    const n = scale * (i + 1);
    ops[operationKey(op)] = { success: n, client_error: Math.floor(n / 20), rate_limited: Math.floor(n / 50), server_error: Math.floor(n / 1000), credits: n };
  }
  return ops;
}

/**
 * Rows of an organization busy every hour for a year, as the roll-up leaves them at `nowMs`:
 * an hour row for each hour of the last 100 days (six operations each), each folded day of the
 * year in its month row, and the roll-up mark that goes with them. Returns the number of rows.
 */
export async function seedYearOfUsage(stores: UsageStores, orgId: string, nowMs: number): Promise<number> {
  const marks = rollupMarks(nowMs);
  const hours = [];
  for (let t = bucketStart('hour', nowMs - HOUR_RETENTION_MS); t <= nowMs; t += HOUR_MS)
    hours.push({ _id: counterRowId(orgId, t), orgId, start: new Date(t), ops: tallies(60) });
  const months = new Map<number, { _id: string; orgId: string; start: Date; days: Record<string, string> }>();
  for (let t = marks.daysUntil - 365 * DAY_MS; t < marks.daysUntil; t += DAY_MS) {
    const m = monthStart(t);
    const row = months.get(m) ?? { _id: counterRowId(orgId, m), orgId, start: new Date(m), days: {} };
    row.days[dayField(t)] = packTallies(tallies(1440));
    months.set(m, row);
  }
  await stores.usage.insertUsageRows(hours, [...months.values()]);
  await stores.usage.setRolledUpUntil(new Date(marks.daysUntil));
  return hours.length + months.size;
}

/**
 * CPU per request of the counters alone, as the API runs them: `requests` counted over the
 * organizations in turn on a clock advancing `ratePerSecond`, a flush every USAGE_FLUSH_EVERY_MS
 * of that clock (the ended minutes, one upsert per organization). This process's CPU plus the store's.
 */
export async function measureCounterCpu(
  stores: UsageStores,
  orgIds: readonly string[],
  requests: number,
  ratePerSecond: number,
  storePid: number | undefined,
): Promise<{ processSeconds: number; storeSeconds: number | undefined; minutes: number }> {
  let clock = Date.now();
  const counters = new UsageCounters(stores, { logger: createLogger({ level: 'silent' }), now: () => clock });
  const perFlush = Math.max(1, Math.round((ratePerSecond * USAGE_FLUSH_EVERY_MS) / 1000));
  const storeBefore = processCpuSeconds(storePid);
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    counters.countRequest(orgIds[i % orgIds.length], 'whoami', 200, 0);
    clock += 1000 / ratePerSecond;
    if ((i + 1) % perFlush === 0) await counters.flush();
  }
  await counters.flush({ all: true });
  const cpu = process.cpuUsage(cpuBefore);
  const storeAfter = processCpuSeconds(storePid);
  return {
    processSeconds: (cpu.user + cpu.system) / 1e6,
    storeSeconds: storeBefore === undefined || storeAfter === undefined ? undefined : storeAfter - storeBefore,
    minutes: Math.ceil(requests / ratePerSecond / 60),
  };
}

/** Sorted latencies' `q` quantile (nearest rank). */
export function quantile(sorted: readonly number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}
