import { randomBytes } from 'node:crypto';
import { newId } from '../core/ids';
import { listContactRetrievalJobs, runningJobCount } from '../core/jobs/jobList';
import type { JobStatus } from '../core/jobs/jobTypes';
import type { JobDoc } from '../core/jobs/store';
import { createStores } from '../core/deps';
import type { KeyPrincipal } from '../core/keys/apiKeys';
import { openStore } from '../core/store/connection';
import type { BenchFigure } from './benchResults';
import { runBench, startBenchStack, type BenchStops } from './benchStack';
import { stats } from './storeLookupTimings';
import { PurposeKeys } from '../core/crypto/purposeKeys';

/**
 * The jobs list's store time in process (no HTTP): one workspace with BENCH_JOBS (default
 * 10,000) numbered jobs, mostly completed, every tenth failed, every fiftieth cancelled, two
 * running; each list (unfiltered and per status, first page of 25) read BENCH_SAMPLES times.
 *
 *   npx tsx bench/jobList.ts     (starts FerretDB and Temporal via scripts/localStack unless MONGODB_URI is set)
 */
const JOBS = Number(process.env.BENCH_JOBS ?? 10_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 50);

async function measure(dir: string, stops: BenchStops): Promise<BenchFigure[]> {
  const { mongodbUri } = await startBenchStack(dir, 'bench_joblist', stops, (m) => process.stdout.write(`${m}\n`));
  const store = await openStore(mongodbUri);
  stops.push(() => store.close());
  const stores = createStores(store.connection);
  await store.ensureIndexes();
  const orgId = newId('org');
  const workspaceId = newId('ws');
  const now = Date.now();
  for (let start = 0; start < JOBS; start += 1000) {
    const batch: Array<Omit<JobDoc, 'seq' | 'listKey'>> = [];
    for (let i = start; i < Math.min(JOBS, start + 1000); i++) {
      const status: JobStatus = i >= JOBS - 2 ? 'running' : i % 50 === 7 ? 'cancelled' : i % 10 === 3 ? 'failed' : 'completed';
      const at = new Date(now - (JOBS - i) * 60_000);
      const id = newId('job');
      batch.push({
        _id: id,
        orgId,
        workspaceId,
        applicationId: 'app_bench',
        familyId: 'kf_bench',
        keyId: 'key_bench',
        status,
        fields: ['email'],
        searchId: null,
        requested: 10,
        counts: { requested: 10, delivered: 7, not_found: 2, failed: 1, reused: 0, cancelled: 0, pending: 0 },
        stopReason: null,
        workflowId: `contact-retrieval-job:${id}`,
        deliveryQuotaAt: null,
        deliveriesReserved: 0,
        completedAt: at,
        resultExpiresAt: null,
        resultPurgeAt: null,
        resultExpiredAt: null,
        resultPurgedAt: null,
        createdAt: at,
        updatedAt: at,
      });
    }
    await stores.jobs.insertJobs(workspaceId, batch);
    // Running jobs hold the organization's running-job slots, as accepted jobs do.
    for (const j of batch.filter((b) => b.status === 'running')) {
      const slot = JOBS - 1 - batch.indexOf(j) - start;
      await stores.jobs.insertJobSlot({ _id: `${orgId}:${slot}`, orgId, slot, jobId: j._id, claimedAt: new Date() });
    }
  }
  const principal = { orgId, workspaceId } as KeyPrincipal;
  // The list signs its cursors; no cursor is read back here, so any key serves.
  const cursorKey = new PurposeKeys(randomBytes(32));
  const lists: Array<[string, () => Promise<unknown>]> = [
    ['unfiltered', () => listContactRetrievalJobs(stores, cursorKey, principal, { limit: 25 })],
    ['status=failed', () => listContactRetrievalJobs(stores, cursorKey, principal, { status: 'failed', limit: 25 })],
    ['status=cancelled', () => listContactRetrievalJobs(stores, cursorKey, principal, { status: 'cancelled', limit: 25 })],
    ['status=running', () => listContactRetrievalJobs(stores, cursorKey, principal, { status: 'running', limit: 25 })],
    ['status=partial (none)', () => listContactRetrievalJobs(stores, cursorKey, principal, { status: 'partial', limit: 25 })],
    ['running job count', () => runningJobCount(stores, orgId)],
  ];
  process.stdout.write(`\n${JOBS} jobs in one workspace; first page of 25, ${SAMPLES} reads each (ms)\n`);
  const figures: BenchFigure[] = [];
  for (const [name, read] of lists) {
    await read();
    const ms: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const t = performance.now();
      await read();
      ms.push(performance.now() - t);
    }
    const s = stats(ms);
    process.stdout.write(`${name.padEnd(24)} p50 ${s.p50.toFixed(1).padStart(7)}  p95 ${s.p95.toFixed(1).padStart(7)}  max ${s.max.toFixed(1).padStart(7)}\n`);
    figures.push({ measure: `${JOBS} jobs, first page of 25: ${name}`, figure: `p50 ${s.p50.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms` });
  }
  return figures;
}

runBench('jobList', measure);
