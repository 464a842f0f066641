import { RESULT_PURGE_AFTER_MS } from '../jobs/jobRules';
import { DEAD_LETTER_REPLAY_WINDOW_MS } from '../webhooks/deliveryWorkflowContract';

/**
 * How long the records with no expiry of their own are kept (store maintenance deletes them
 * after that). Pure figures and predicates, so the choice is tested and written down once.
 */
const DAY_MS = 24 * 3600_000;

/**
 * A webhook event and its delivery records: as long as the job result they announce can exist
 * (30 days, the result purge), and never while a run may still be going: a run ends within
 * ~21 h of its start, and a dead-lettered event can be replayed for 7 days, so an event whose
 * state has not moved (dead-letter, replay request) for the replay window plus a day is done.
 */
export const EVENT_RETENTION_MS = RESULT_PURGE_AFTER_MS;
export const EVENT_QUIET_MS = DEAD_LETTER_REPLAY_WINDOW_MS + DAY_MS;

export function eventPurgeable(event: { createdAt: Date; updatedAt: Date }, nowMs: number): boolean {
  return event.createdAt.getTime() <= nowMs - EVENT_RETENTION_MS && event.updatedAt.getTime() <= nowMs - EVENT_QUIET_MS;
}

/** An attempt claim is needed only while its attempt can be retried: a run's lifetime at most. */
export const ATTEMPT_CLAIM_RETENTION_MS = EVENT_RETENTION_MS;

/**
 * A refresh-token chain is deleted once every token of it has expired (idle expiry): until
 * then a used token must stay, so that presenting it again still revokes the chain.
 */
export function chainExpired(tokens: ReadonlyArray<{ expiresAt: Date }>, nowMs: number): boolean {
  return tokens.length > 0 && tokens.every((t) => t.expiresAt.getTime() <= nowMs);
}
