import type { Client } from '@temporalio/client';
import { EagerDeliveryStarts } from '../../core/webhooks/jobCompletedEvent';

test('events start eagerly only on the worker attached to this process, while it runs and polls their task queue', () => {
  const eager = new EagerDeliveryStarts();
  expect(eager.on('jobs')).toBeUndefined();
  let running = true;
  const worker = { client: {} as Client, taskQueue: 'jobs', running: () => running };
  eager.attach(worker);
  expect(eager.on('jobs')).toBe(worker);
  expect(eager.on('other-queue')).toBeUndefined();
  running = false;
  expect(eager.on('jobs')).toBeUndefined();
  // Another process's (or test's) starts are its own.
  expect(new EagerDeliveryStarts().on('jobs')).toBeUndefined();
});
