import type { DeliveryView } from './deliveryView';

/**
 * What became of an event, read from its delivery's last attempt (the latest run's latest attempt)
 * rather than from the event record, which a finished run does not always update: delivered,
 * retrying with the next attempt's time, dead-lettered, or not yet tried. A replay that succeeded
 * reads as delivered by that replay.
 */
export type EventDeliveryStatus =
  | { state: 'not_tried' }
  | { state: 'delivered'; replay: number; at: string }
  | { state: 'retrying'; replay: number; nextAttemptAt: string | null }
  | { state: 'dead_lettered'; replay: number; at: string };

export function eventDeliveryStatus(
  attempts: readonly Pick<DeliveryView, 'replay' | 'attempt' | 'status' | 'attempted_at' | 'next_attempt_at'>[],
): EventDeliveryStatus {
  const last = [...attempts].sort((a, b) => a.replay - b.replay || a.attempt - b.attempt).at(-1);
  if (!last) return { state: 'not_tried' };
  if (last.status === 'succeeded') return { state: 'delivered', replay: last.replay, at: last.attempted_at };
  if (last.status === 'dead_lettered') return { state: 'dead_lettered', replay: last.replay, at: last.attempted_at };
  return { state: 'retrying', replay: last.replay, nextAttemptAt: last.next_attempt_at };
}
