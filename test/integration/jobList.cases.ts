import { newId } from '../../core/ids';
import { MAX_SCANNED_PER_PAGE, listContactRetrievalJobs, runningJobCount } from '../../core/jobs/jobList';
import type { JobStatus } from '../../core/jobs/jobTypes';
import type { JobDoc } from '../../core/jobs/store';
import type { KeyPrincipal } from '../../core/keys/apiKeys';
import { openTestStore, type TestStore } from '../support/testStore';
import { createTenant } from '../support/fixtures';
import { testConfig } from '../support/testConfig';
import { purposeKeysOf } from '../../core/crypto/purposeKeys';

// The jobs list read by numbers: newest first, status filters walking down with a scan cap, and
// jobs accepted before numbering after the numbered ones.
const config = testConfig();

let testStore: TestStore;
beforeAll(async () => {
  testStore = await openTestStore(config);
});
afterAll(async () => testStore.close());

const BASE = Date.parse('2026-06-01T00:00:00Z');

function job(t: { orgId: string; workspaceId: string }, status: JobStatus, at: number): Omit<JobDoc, 'seq' | 'listKey'> {
  const id = newId('job');
  return {
    _id: id,
    orgId: t.orgId,
    workspaceId: t.workspaceId,
    applicationId: 'app_list',
    familyId: 'kf_list',
    keyId: 'key_list',
    status,
    fields: ['email'],
    searchId: null,
    requested: 1,
    counts: status === 'running' ? null : { requested: 1, delivered: 1, not_found: 0, failed: 0, reused: 0, cancelled: 0, pending: 0 },
    stopReason: null,
    workflowId: `contact-retrieval-job:${id}`,
    deliveryQuotaAt: null,
    deliveriesReserved: 0,
    completedAt: null,
    resultExpiresAt: null,
    resultPurgeAt: null,
    resultExpiredAt: null,
    resultPurgedAt: null,
    createdAt: new Date(at),
    updatedAt: new Date(at),
  };
}

async function allPages(principal: KeyPrincipal, limit: number, status?: JobStatus): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await listContactRetrievalJobs(testStore.stores, purposeKeysOf(config), principal, { status, limit, cursor });
    expect(page.data.length).toBeLessThanOrEqual(limit);
    ids.push(...page.data.map((j) => j.job_id));
    cursor = page.next_cursor ?? undefined;
    pages++;
  } while (cursor && pages < 100);
  return { ids, pages };
}

test('numbered jobs page newest first, then the jobs accepted before numbering, each once; filters and the running count agree', async () => {
  const t = await createTenant();
  const principal = { orgId: t.orgId, workspaceId: t.workspaceId } as KeyPrincipal;
  // Accepted before numbering existed: written without a number.
  const legacy = [job(t, 'completed', BASE), job(t, 'failed', BASE + 1000), job(t, 'completed', BASE + 2000), job(t, 'running', BASE + 3000)];
  await testStore.stores.jobs.insertUnnumberedJobs(legacy);
  const statuses: JobStatus[] = ['completed', 'failed', 'completed', 'cancelled', 'failed', 'running', 'completed'];
  const numbered = statuses.map((s, i) => job(t, s, BASE + 10_000 + i * 1000));
  await testStore.stores.jobs.insertJobs(t.workspaceId, numbered);
  expect(await testStore.stores.jobs.jobListHead(t.workspaceId)).toMatchObject({ seq: numbered.length, legacy: true });
  // Running jobs hold the organization's running-job slots, as accepted jobs do.
  const running = [...legacy, ...numbered].filter((j) => j.status === 'running');
  for (const [slot, j] of running.entries())
    expect(await testStore.stores.jobs.insertJobSlot({ _id: `${t.orgId}:${slot}`, orgId: t.orgId, slot, jobId: j._id, claimedAt: new Date() })).toBe(true);

  const newestFirst = [...numbered.reverse(), ...legacy.reverse()];
  for (const limit of [1, 3, 11, 20]) expect((await allPages(principal, limit)).ids).toEqual(newestFirst.map((j) => j._id));
  for (const status of ['failed', 'completed', 'running', 'cancelled'] as JobStatus[]) {
    const expected = newestFirst.filter((j) => j.status === status).map((j) => j._id);
    expect((await allPages(principal, 2, status)).ids).toEqual(expected);
  }
  expect(await runningJobCount(testStore.stores, t.orgId)).toBe(2);

  // Another workspace's cursor and a forged position are refused.
  const other = await createTenant();
  const first = await listContactRetrievalJobs(testStore.stores, purposeKeysOf(config), principal, { limit: 1 });
  await expect(
    listContactRetrievalJobs(testStore.stores, purposeKeysOf(config), { orgId: other.orgId, workspaceId: other.workspaceId } as KeyPrincipal, {
      limit: 1,
      cursor: first.next_cursor!,
    }),
  ).rejects.toMatchObject({
    code: 'invalid_cursor',
  });
  const forged = Buffer.from(JSON.stringify({ s: `jobs:${t.workspaceId}:*`, p: { n: -1 } })).toString('base64url');
  await expect(listContactRetrievalJobs(testStore.stores, purposeKeysOf(config), principal, { limit: 1, cursor: forged })).rejects.toMatchObject({
    code: 'invalid_cursor',
  });
  // A cursor signed under another deployment's secrets key is refused too.
  const elsewhere = await listContactRetrievalJobs(testStore.stores, purposeKeysOf(testConfig()), principal, { limit: 1 });
  await expect(
    listContactRetrievalJobs(testStore.stores, purposeKeysOf(config), principal, { limit: 1, cursor: elsewhere.next_cursor! }),
  ).rejects.toMatchObject({
    code: 'invalid_cursor',
  });
  expect(
    (
      await listContactRetrievalJobs(testStore.stores, purposeKeysOf(config), { orgId: other.orgId, workspaceId: other.workspaceId } as KeyPrincipal, {
        limit: 5,
      })
    ).data,
  ).toEqual([]);
});

test('a rare status answers a short page with a cursor after MAX_SCANNED_PER_PAGE numbers, and the next page goes on', async () => {
  const t = await createTenant();
  const principal = { orgId: t.orgId, workspaceId: t.workspaceId } as KeyPrincipal;
  const rare = job(t, 'cancelled', BASE);
  const common = Array.from({ length: MAX_SCANNED_PER_PAGE + 10 }, (_, i) => job(t, 'completed', BASE + 1000 + i));
  await testStore.stores.jobs.insertJobs(t.workspaceId, [rare]);
  for (let i = 0; i < common.length; i += 1000) await testStore.stores.jobs.insertJobs(t.workspaceId, common.slice(i, i + 1000));
  expect(await testStore.stores.jobs.jobListHead(t.workspaceId)).toMatchObject({ seq: common.length + 1, legacy: false });

  const firstPage = await listContactRetrievalJobs(testStore.stores, purposeKeysOf(config), principal, { status: 'cancelled', limit: 5 });
  expect(firstPage.data).toEqual([]);
  expect(firstPage.next_cursor).not.toBeNull();
  const secondPage = await listContactRetrievalJobs(testStore.stores, purposeKeysOf(config), principal, {
    status: 'cancelled',
    limit: 5,
    cursor: firstPage.next_cursor!,
  });
  expect(secondPage.data.map((j) => j.job_id)).toEqual([rare._id]);
  expect(secondPage.next_cursor).toBeNull();

  const newest = await listContactRetrievalJobs(testStore.stores, purposeKeysOf(config), principal, { limit: 3 });
  expect(newest.data.map((j) => j.job_id)).toEqual(
    common
      .slice(-3)
      .reverse()
      .map((j) => j._id),
  );
});
