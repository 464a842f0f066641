import { logger } from './observability/logger';

/**
 * Exit points for the chaos run: a worker started with CHAOS_EXIT_AT=<point> (a test/local
 * relaxation, refused in production by the config) ends its process, as a SIGKILL would, the
 * first time it reaches that point. Off unless a setting names it.
 */
export type ExitPoint = 'after_charge';

let armed: ExitPoint | null = null;

export function armExitPoint(point: ExitPoint | null): void {
  armed = point;
}

/** Ends the process here when this point is armed; otherwise nothing. */
export function exitPoint(point: ExitPoint): void {
  if (armed !== point) return;
  logger.warn({ point }, 'CHAOS_EXIT_AT: the process ends here');
  process.kill(process.pid, 'SIGKILL');
}
