import type { Config } from '../core/config';

/** Builds the activity implementations the worker registers; each one is idempotent. */
export function createActivities(_config: Config) {
  return {};
}

export type Activities = ReturnType<typeof createActivities>;
