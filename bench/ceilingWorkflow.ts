import { patched, proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { SA } from '../core/temporal/searchAttributes';

/**
 * Benchmark only (bench/webhooks.ts): the command shape of a delivery that succeeds on its
 * first attempt (one local activity, completion), with an activity that touches neither the
 * store nor the network. Its rate is what the Temporal server and worker allow
 * one-workflow-per-event delivery on this machine, whatever the delivery does. `upsertStatus`
 * picks the ending of the delivery before the `success-keeps-start-status` patch (the
 * DeliveryStatus upsert) or after it (a patch marker, no upsert).
 */
const { touch } = proxyLocalActivities<{ touch(id: string): Promise<void> }>({ startToCloseTimeout: '1 minute' });

export async function deliveryCeilingProbe(id: string, upsertStatus = true): Promise<void> {
  await touch(id);
  if (upsertStatus) upsertSearchAttributes([{ key: SA.deliveryStatus, value: 'succeeded' }]);
  else patched('bench-probe-marker');
}
