import { patched, proxyLocalActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { SA } from '../core/temporal/searchAttributes';

/**
 * Benchmark only (bench/webhooks.ts): the command shape of a delivery that succeeds on its
 * first attempt (the `first-attempt-local-activity` patch marker with the TemporalChangeVersion
 * upsert the SDK adds to it, one local activity, the DeliveryStatus upsert, completion), with an
 * activity that touches neither the store nor the network. Its rate is what the Temporal server
 * and worker allow one-workflow-per-event delivery on this machine, whatever the delivery does.
 */
const { touch } = proxyLocalActivities<{ touch(id: string): Promise<void> }>({ startToCloseTimeout: '1 minute' });

export async function deliveryCeilingProbe(id: string): Promise<void> {
  if (!patched('first-attempt-local-activity')) throw new Error('the probe always runs the patched shape');
  await touch(id);
  upsertSearchAttributes([{ key: SA.deliveryStatus, value: 'succeeded' }]);
}
