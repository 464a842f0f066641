/**
 * The retry schedule of SPEC 6.4: nine attempts, eight delays between them. Pure and free of
 * Node APIs so the delivery workflow can import it.
 *
 * Jitter only delays: an attempt waits its base delay plus a random extra of at most
 * JITTER_FRACTION of that delay, capped at MAX_JITTER_MS. With the spec schedule the last
 * attempt therefore lands between 20.7 h and 21.1 h after the first ("roughly 21 hours").
 */
export const SPEC_RETRY_DELAYS_MS: readonly number[] = [5_000, 30_000, 120_000, 600_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000];
export const MAX_ATTEMPTS = 9;
export const JITTER_FRACTION = 0.1;
export const MAX_JITTER_MS = 5 * 60_000;

/** Upper bound of the extra delay for a base delay. */
export function maxJitterMs(baseMs: number): number {
  return Math.min(Math.floor(baseMs * JITTER_FRACTION), MAX_JITTER_MS);
}

/** Base delay plus jitter; `random` is in [0, 1) (the workflow's deterministic Math.random). */
export function delayWithJitter(baseMs: number, random: number): number {
  const r = Math.min(Math.max(random, 0), 0.999999);
  return baseMs + Math.floor(r * (maxJitterMs(baseMs) + 1));
}

/** The delay after failed attempt `attempt` (1-based), or null after the last attempt. */
export function delayAfterAttempt(attempt: number, schedule: readonly number[], random: number): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const base = schedule[attempt - 1];
  if (base === undefined) throw new Error(`no delay for attempt ${attempt}`);
  return delayWithJitter(base, random);
}

export function validSchedule(schedule: readonly number[] | undefined): readonly number[] {
  if (!schedule) return SPEC_RETRY_DELAYS_MS;
  if (schedule.length !== MAX_ATTEMPTS - 1 || schedule.some((d) => !Number.isInteger(d) || d < 0)) {
    throw new Error(`a retry schedule has ${MAX_ATTEMPTS - 1} non-negative integer delays`);
  }
  return schedule;
}
