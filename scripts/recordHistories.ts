import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { temporal } from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { bundleWorkflowCode, DefaultLogger, makeTelemetryFilterString, Runtime, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { ContactActivities } from '../activities/contacts';
import type { AttemptInput, AttemptResult } from '../activities/deliveries';
import type { FinishedJob } from '../core/jobs/jobFinish';
import type { ContactRetrievalInput } from '../core/jobs/workflowInput';
import { SA } from '../core/temporal/searchAttributes';
import type { WebhookDeliveryInput } from '../core/webhooks/deliveryWorkflowContract';
import { writeHistoryFile } from './historyFiles';
import { BINARIES, ROOT } from './localServices';

/**
 * Re-records the workflow histories the replay tests (test/unit/workflowReplay.test.ts) replay
 * against today's workflow code: `npx tsx scripts/recordHistories.ts`. Each workflow runs on the
 * time-skipping test server with stand-in activities (a history holds their results, not how
 * they were reached), and its history is written to test/workflows/histories/. The delivery
 * workflow is recorded twice: with today's code and with the code of the commit before the
 * `first-attempt-local-activity` patch, bundled from `git archive`, so histories of runs
 * started before the patch keep replaying. Re-record only on purpose: a history that no longer
 * replays means running workflows would break.
 */
export const HISTORIES_DIR = join(ROOT, 'test', 'workflows', 'histories');
const PATCH_ID = 'first-attempt-local-activity';
const TASK_QUEUE = 'record-histories';

const quietLogger = {
  log() {},
  trace() {},
  debug() {},
  info() {},
  warn: (m: string) => process.stderr.write(`${m}\n`),
  error: (m: string) => process.stderr.write(`${m}\n`),
};

/** The workflow code as it was just before the patch, bundled from a temporary checkout of its files. */
async function bundleBeforePatch(): Promise<{ bundle: WorkflowBundleWithSourceMap; commit: string }> {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  const patchCommit = git('log', '-S', PATCH_ID, '--format=%H', '--reverse', '--', 'workflows/').split('\n')[0];
  if (!patchCommit) throw new Error(`no commit introduces ${PATCH_ID} under workflows/`);
  const commit = git('rev-parse', `${patchCommit}^`);
  const dir = mkdtempSync(join(tmpdir(), 'workflows-before-patch-'));
  try {
    const archive = execFileSync('git', ['archive', '--format=tar', commit, 'workflows', 'core', 'activities'], { cwd: ROOT, maxBuffer: 64 << 20 });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    const bundle = await bundleWorkflowCode({ workflowsPath: join(dir, 'workflows', 'index.ts'), logger: quietLogger });
    return { bundle, commit };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Attempts of the original run fail until it is dead-lettered; the replay's first attempt succeeds. */
async function attemptDelivery(input: AttemptInput): Promise<AttemptResult> {
  const ok = input.run.replay > 0;
  return { ok, deliveryId: `dlv_recorded_${input.run.replay}_${input.attempt}`, status: ok ? 'succeeded' : 'failed' };
}

const deliveryInput: WebhookDeliveryInput = {
  eventId: 'evt_recorded',
  orgId: 'org_recorded',
  workspaceId: 'ws_recorded',
  jobId: 'job_recorded',
  body: '{"type":"job.completed"}',
  run: { replay: 0, endpointId: 'ep_recorded' },
  retryDelaysMs: [1000, 2000, 3000, 4000, 5000, 6000, 7000, 8000],
  replayWindowMs: 3600_000,
  indexed: true,
};

const contactInput: ContactRetrievalInput = {
  jobId: 'job_recorded',
  orgId: 'org_recorded',
  workspaceId: 'ws_recorded',
  familyId: 'kf_recorded',
  requested: 10,
  fields: ['email'],
  chunkSize: 4,
  concurrency: 2,
  heartbeatTimeoutMs: 30_000,
};

const finished: FinishedJob = {
  jobId: contactInput.jobId,
  orgId: contactInput.orgId,
  workspaceId: contactInput.workspaceId,
  status: 'completed',
  counts: { requested: 10, delivered: 9, reused: 1, not_found: 0, failed: 0, cancelled: 0, pending: 0 },
  completedAt: '2026-01-01T00:00:00.000Z',
  resultExpiresAt: '2026-01-08T00:00:00.000Z',
  resultPurgeAt: '2026-01-31T00:00:00.000Z',
};

const contactActivities: ContactActivities = {
  planContactReuse: async () => [1],
  processContactChunk: async (input) => ({
    tally: { delivered: input.to - input.from - (input.reusable ?? []).length, reused: (input.reusable ?? []).length },
    outOfCredits: false,
  }),
  finishContactRetrievalJob: async () => finished,
  emitContactRetrievalCompleted: async () => ({ eventId: 'evt_recorded', deliveryStarted: true }),
  expireContactRetrievalResult: async () => undefined,
  purgeContactRetrievalResult: async () => undefined,
};

async function record(
  env: TestWorkflowEnvironment,
  bundle: WorkflowBundleWithSourceMap,
  name: string,
  run: (workflowId: string) => Promise<unknown>,
): Promise<void> {
  const taskQueue = `${TASK_QUEUE}-${name}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: bundle,
    activities: { attemptDelivery, ...contactActivities },
  });
  const workflowId = `recorded-${name}`;
  await worker.runUntil(run(workflowId));
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  writeHistoryFile(join(HISTORIES_DIR, `${name}.json`), history);
  process.stderr.write(`recorded ${name}.json (${history.events?.length ?? 0} events)\n`);
}

/** Runs the original delivery run to its dead-letter, then the replay the signal asks for. */
function deliveryScenario(env: TestWorkflowEnvironment, name: string) {
  return async (workflowId: string) => {
    const handle = await env.client.workflow.start('webhookDelivery', { workflowId, taskQueue: `${TASK_QUEUE}-${name}`, args: [deliveryInput] });
    await handle.signal('replay', { replay: 1, endpointId: 'ep_recorded' });
    return handle.result();
  };
}

async function main(): Promise<void> {
  mkdirSync(HISTORIES_DIR, { recursive: true });
  Runtime.install({ logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
  const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: BINARIES.temporalTestServer } } });
  try {
    await env.connection.operatorService.addSearchAttributes({
      namespace: env.namespace ?? 'default',
      searchAttributes: Object.fromEntries(Object.values(SA).map((k) => [k.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD])),
    });
    const current = await bundleWorkflowCode({ workflowsPath: require.resolve('../workflows'), logger: quietLogger });
    const before = await bundleBeforePatch();
    process.stderr.write(`pre-patch workflow code from ${before.commit}\n`);
    await record(env, before.bundle, 'webhookDelivery-before-first-attempt-local', deliveryScenario(env, 'webhookDelivery-before-first-attempt-local'));
    await record(env, current, 'webhookDelivery-first-attempt-local', deliveryScenario(env, 'webhookDelivery-first-attempt-local'));
    await record(env, current, 'contactRetrieval', async (workflowId) =>
      env.client.workflow.execute('contactRetrievalWorkflow', { workflowId, taskQueue: `${TASK_QUEUE}-contactRetrieval`, args: [contactInput] }),
    );
  } finally {
    await env.teardown();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (err: Error) => {
      process.stderr.write(`${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
}
