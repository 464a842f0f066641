import type { Config } from '../config';
import { temporalCall } from '../temporal/client';
import { deliveryWorkflowId, REPLAY_SIGNAL } from './deliveryWorkflowContract';
import type { ReplaySignaller } from './replays';

/** The replay signal through the process's Temporal client, connection included, within `limitMs`. */
export function temporalReplaySignaller(config: Config, limitMs = config.temporal.callTimeoutMs): ReplaySignaller {
  return (eventId, run) =>
    temporalCall(
      config,
      `the replay signal of ${eventId}`,
      (client) => client.workflow.getHandle(deliveryWorkflowId(eventId)).signal(REPLAY_SIGNAL, run),
      limitMs,
    );
}
