import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { temporal } from '@temporalio/proto';
import Long from 'long';
import { readHistoryFile } from '../../scripts/historyFiles';
import { WORKFLOW_BUNDLES } from '../../scripts/localServices';
import { cachedWorkflowBundle } from '../../worker/workflowBundle';

/**
 * Recorded histories (test/workflows/histories/, re-recorded by scripts/recordHistories.ts)
 * replayed against today's workflow code, as running workflows would be after a deploy: a
 * change that breaks determinism for a history already written fails here. The delivery
 * workflow has one history from before the `first-attempt-local-activity` patch and one after.
 */

const DIR = join(__dirname, '..', 'workflows', 'histories');
const EventType = temporal.api.enums.v1.EventType;
let bundle: { codePath: string };

const bundleLogger = { warn() {}, error: (m: string) => process.stderr.write(`${m}\n`) };

beforeAll(async () => {
  try {
    Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
  } catch {
    // Already installed in this jest worker.
  }
  // Today's workflow code, as the worker runs it (bundled, or reused while its sources are unchanged).
  bundle = { codePath: (await cachedWorkflowBundle(WORKFLOW_BUNDLES, bundleLogger)).path };
});

const historyFiles = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();
const history = (name: string) => readHistoryFile(join(DIR, `${name}.json`));
const events = (name: string) => history(name).events ?? [];
const count = (name: string, type: temporal.api.enums.v1.EventType) => events(name).filter((e) => e.eventType === type).length;

test('the recorded histories are the ones the replay is meant to cover', () => {
  expect(historyFiles).toEqual(['contactRetrieval.json', 'webhookDelivery-before-first-attempt-local.json', 'webhookDelivery-first-attempt-local.json']);
  // Before the patch: all ten attempts (nine, then the replay's first) are ordinary activities, no markers.
  expect(count('webhookDelivery-before-first-attempt-local', EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toBe(10);
  expect(count('webhookDelivery-before-first-attempt-local', EventType.EVENT_TYPE_MARKER_RECORDED)).toBe(0);
  // After: each run's first attempt is a local activity (a marker), plus the patch marker.
  expect(count('webhookDelivery-first-attempt-local', EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toBe(8);
  expect(count('webhookDelivery-first-attempt-local', EventType.EVENT_TYPE_MARKER_RECORDED)).toBe(3);
  for (const name of ['webhookDelivery-before-first-attempt-local', 'webhookDelivery-first-attempt-local']) {
    expect(count(name, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED)).toBe(1);
    expect(count(name, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED)).toBe(1);
  }
  expect(count('contactRetrieval', EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)).toBe(1);
});

test("every recorded history replays on today's workflow code", async () => {
  const results: Array<{ workflowId: string; error?: unknown }> = [];
  const histories = historyFiles.map((f) => ({ workflowId: f.replace(/\.json$/, ''), history: readHistoryFile(join(DIR, f)) }));
  for await (const r of Worker.runReplayHistories({ workflowBundle: bundle, replayName: 'recorded-histories' }, histories)) {
    results.push({ workflowId: r.workflowId, error: r.error });
  }
  expect(results.map((r) => r.workflowId)).toEqual(histories.map((h) => h.workflowId));
  for (const r of results) expect({ workflowId: r.workflowId, error: r.error }).toEqual({ workflowId: r.workflowId, error: undefined });
});

test('a history the code no longer matches fails the replay (the test can fail)', async () => {
  // The post-patch history with its patch marker removed reads like a pre-patch history that
  // nevertheless ran its first attempt locally: the code must refuse it.
  const tampered = history('webhookDelivery-first-attempt-local');
  const firstMarker = tampered.events!.findIndex(
    (e) => e.eventType === EventType.EVENT_TYPE_MARKER_RECORDED && e.markerRecordedEventAttributes?.markerName === 'core_patch',
  );
  expect(firstMarker).toBeGreaterThan(0);
  tampered.events!.splice(firstMarker, 1);
  tampered.events!.forEach((e, i) => (e.eventId = Long.fromNumber(i + 1)));
  await expect(Worker.runReplayHistory({ workflowBundle: bundle, replayName: 'tampered' }, tampered)).rejects.toThrow(DeterminismViolationError);
});
