import type { Config } from '../config';
import type { TemporalClients } from '../temporal/client';
import { deliveryWorkflowId, REPLAY_SIGNAL } from './deliveryWorkflowContract';
import type { ReplaySignaller } from './replays';

/** The replay signal through the app's Temporal clients, connection included, within `limitMs`. */
export function temporalReplaySignaller(temporal: TemporalClients, config: Config, limitMs = config.temporal.callTimeoutMs): ReplaySignaller {
  return (eventId, run) =>
    temporal.call(`the replay signal of ${eventId}`, (client) => client.workflow.getHandle(deliveryWorkflowId(eventId)).signal(REPLAY_SIGNAL, run), limitMs);
}
