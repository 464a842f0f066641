import { randomBytes } from 'node:crypto';
import { ensureMaintenanceSchedule, MAINTENANCE_WORKFLOW_TYPE } from '../../core/maintenance/maintenanceSchedule';
import { startTestApi, type TestApi } from '../support/testApi';
import { startTestWorker, type TestWorker } from '../support/testWorker';
import { eventually } from '../support/eventually';

let srv: TestApi;
let worker: TestWorker;

beforeAll(async () => {
  srv = await startTestApi();
  worker = await startTestWorker(srv.config);
});
afterAll(async () => {
  await worker?.stop();
  await srv?.close();
});

const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** One expired and one live record of each kind the maintenance purges. */
async function seedRecords(): Promise<{ expired: Record<string, string>; live: Record<string, string> }> {
  const tag = randomBytes(6).toString('hex');
  const at = (offsetMs: number) => new Date(Date.now() + offsetMs);
  const ids = { expired: {} as Record<string, string>, live: {} as Record<string, string> };
  for (const [which, offset] of [
    ['expired', -HOUR],
    ['live', HOUR],
  ] as const) {
    const id = `${which}_${tag}`;
    await srv.deps.stores.talent.insertSearch(
      { _id: `srch_${id}`, orgId: 'org_maint', fingerprint: 'f', params: {}, size: 1, total: 1, expiresAt: at(offset) },
      ['per_a', 'per_b'],
    );
    await srv.deps.stores.talent.appendQuotaEntry(`q_${id}`, 0, { members: ['m'], countAfter: 1, expiresAt: at(offset) });
    await srv.deps.stores.idempotency.insertClaim({
      _id: `org_maint:${id}`,
      orgId: 'org_maint',
      operation: 'profiles.unlock',
      fingerprint: 'f',
      state: 'in_progress',
      owner: 'o',
      leaseUntil: at(offset),
      createdAt: at(-2 * HOUR),
      expiresAt: at(offset),
    });
    ids[which] = { search: `srch_${id}`, quota: `q_${id}`, idempotency: `org_maint:${id}` };
  }
  return ids;
}

async function present(ids: Record<string, string>): Promise<boolean[]> {
  const [parts, quota, claim] = await Promise.all([
    srv.deps.stores.talent.storedSearchParts(ids.search),
    srv.deps.stores.talent.readQuotaEntry(ids.quota, 0),
    srv.deps.stores.idempotency.findClaim(ids.idempotency),
  ]);
  return [parts.search, parts.people, quota !== null, claim !== null];
}

describe('store maintenance', () => {
  test('a run deletes expired searches, quota windows and idempotency records, and keeps live ones', async () => {
    const ids = await seedRecords();
    const client = await srv.deps.temporal.client();
    const counts = await client.workflow.execute(MAINTENANCE_WORKFLOW_TYPE, {
      taskQueue: srv.config.temporal.taskQueue,
      workflowId: `store-maintenance-test-${randomBytes(4).toString('hex')}`,
      args: [],
    });
    expect(counts.searches).toBeGreaterThanOrEqual(1);
    expect(counts.quotaEntries).toBeGreaterThanOrEqual(1);
    expect(counts.idempotencyRecords).toBeGreaterThanOrEqual(1);
    expect(await present(ids.expired)).toEqual([false, false, false, false]);
    expect(await present(ids.live)).toEqual([true, true, true, true]);
  });

  test('the hourly schedule is created once, runs the maintenance workflow on the worker, and a second start finds it', async () => {
    const client = await srv.deps.temporal.client();
    const scheduleId = `store-maintenance-test-${randomBytes(4).toString('hex')}`;
    const opts = { taskQueue: srv.config.temporal.taskQueue, scheduleId };
    expect(await ensureMaintenanceSchedule(client, opts)).toBe(true);
    expect(await ensureMaintenanceSchedule(client, opts)).toBe(false);
    const handle = client.schedule.getHandle(scheduleId);
    try {
      const d = await handle.describe();
      expect(d.spec.intervals).toEqual([expect.objectContaining({ every: 3600_000 })]);
      expect(d.action).toMatchObject({ type: 'startWorkflow', workflowType: MAINTENANCE_WORKFLOW_TYPE, taskQueue: opts.taskQueue });
      expect(d.policies.overlap).toBe('SKIP');

      const ids = await seedRecords();
      await handle.trigger();
      const run = await eventually('the schedule to start a run', async () => (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId);
      expect(run.startsWith(scheduleId)).toBe(true);
      await client.workflow.getHandle(run).result();
      expect(await present(ids.expired)).toEqual([false, false, false, false]);
      expect(await present(ids.live)).toEqual([true, true, true, true]);
    } finally {
      await handle.delete();
    }
  });

  test('refresh tokens, events, deliveries and attempt claims are never purged: a run deletes those past their retention and keeps the rest', async () => {
    const tag = randomBytes(6).toString('hex');
    const ago = (ms: number) => new Date(Date.now() - ms);
    const webhooks = srv.deps.stores.webhooks;
    const event = (id: string, createdAgo: number, updatedAgo: number) =>
      webhooks.events.insertEventRecords([
        {
          _id: id,
          jobId: `job_${id}`,
          orgId: 'org_maint',
          workspaceId: 'ws_maint',
          endpointId: 'we_maint',
          body: '{}',
          resultExpiresAt: null,
          status: 'dead_lettered',
          replays: 0,
          deadLetteredAt: null,
          replayDue: false,
          replayRun: null,
          replayLeaseUntil: null,
          createdAt: ago(createdAgo),
          updatedAt: ago(updatedAgo),
        },
      ]);
    const delivery = (eventId: string) =>
      webhooks.deliveries.insertDeliveryRecords([
        {
          _id: `wd_${eventId}`,
          eventId,
          endpointId: 'we_maint',
          orgId: 'org_maint',
          workspaceId: 'ws_maint',
          jobId: `job_${eventId}`,
          attempt: 9,
          replay: 0,
          status: 'dead_lettered',
          responseStatus: null,
          errorCode: null,
          durationMs: null,
          scheduledAt: ago(31 * DAY),
          attemptedAt: ago(31 * DAY),
          nextAttemptAt: null,
          createdAt: ago(31 * DAY),
          updatedAt: ago(31 * DAY),
        },
      ]);
    // Past the 30-day retention and quiet for over 8 days: purged with its records.
    const old = `evt_old_${tag}`;
    // Old, but replayed 2 days ago: a run may still be going, kept.
    const replayed = `evt_replayed_${tag}`;
    const young = `evt_young_${tag}`;
    await event(old, 31 * DAY, 20 * DAY);
    await event(replayed, 31 * DAY, 2 * DAY);
    await event(young, 3 * DAY, 3 * DAY);
    for (const e of [old, replayed, young]) await delivery(e);
    await webhooks.deliveries.claimAttempt({ eventId: old, replay: 0, attempt: 1 }, ago(31 * DAY));
    await webhooks.deliveries.claimAttempt({ eventId: young, replay: 0, attempt: 1 }, ago(3 * DAY));
    const token = (id: string, chainId: string, expiresAgo: number) => ({
      _id: id,
      hash: `h_${id}`,
      clientId: 'cli_maint',
      chainId,
      scope: 'mcp:tools',
      resource: 'https://mcp.example/tools',
      createdAt: ago(40 * DAY),
      expiresAt: ago(expiresAgo),
    });
    // A chain whose every token expired goes; one whose latest token still lives keeps its used ones.
    await srv.deps.stores.oauth.insertRefreshTokens([
      token(`rt_a1_${tag}`, `chain_dead_${tag}`, 10 * DAY),
      token(`rt_a2_${tag}`, `chain_dead_${tag}`, HOUR),
      token(`rt_b1_${tag}`, `chain_live_${tag}`, 10 * DAY),
      token(`rt_b2_${tag}`, `chain_live_${tag}`, -DAY),
    ]);

    const client = await srv.deps.temporal.client();
    const counts = await client.workflow.execute(MAINTENANCE_WORKFLOW_TYPE, {
      taskQueue: srv.config.temporal.taskQueue,
      workflowId: `store-maintenance-test-${randomBytes(4).toString('hex')}`,
      args: [],
    });
    expect(counts).toMatchObject({ webhookEvents: 1, webhookDeliveries: 1, attemptClaims: 1, refreshTokens: 2 });
    const kept = async (eventId: string) => [
      (await webhooks.events.eventById(eventId)) !== null,
      (await webhooks.deliveries.deliveriesOfEvent(eventId)).length,
    ];
    expect([await kept(old), await kept(replayed), await kept(young)]).toEqual([
      [false, 0],
      [true, 1],
      [true, 1],
    ]);
    expect(await webhooks.deliveries.claimedAttemptsOf(old)).toEqual([]);
    expect(await webhooks.deliveries.claimedAttemptsOf(young)).toEqual([{ replay: 0, attempt: 1 }]);
    expect(
      (await srv.deps.stores.oauth.refreshTokensOfClient('cli_maint'))
        .map((t) => t._id)
        .filter((id) => id.includes(tag))
        .sort(),
    ).toEqual([`rt_b1_${tag}`, `rt_b2_${tag}`]);
  });
});
