import type { ResponseDoc } from '../routeSpec';

/** The 409 of every route that takes an Idempotency-Key (SPEC's idempotency rules). */
export const IDEMPOTENCY_CONFLICT: ResponseDoc = {
  description: '`idempotency_key_reused` (the key came with a different body) or `idempotency_in_progress` (its first request still runs; Retry-After)',
};
