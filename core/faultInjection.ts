import type { Logger } from './observability/logger';

/**
 * Exit points for the chaos run: a worker started with CHAOS_EXIT_AT=<point> (a test/local
 * relaxation, refused in production by the config) ends its process, as a SIGKILL would, the
 * first time it reaches that point. Off unless a setting names it.
 */
export type ExitPoint = 'after_charge';

/** Called where the process may be ended; does nothing unless that point is the armed one. */
export type ReachExitPoint = (point: ExitPoint) => void;

/** The exit points of one process, armed at `armed` (the root passes `config.chaosExitAt`). */
export function exitPoints(armed: ExitPoint | null, logger: Logger): ReachExitPoint {
  return (point) => {
    if (armed !== point) return;
    logger.warn({ point }, 'CHAOS_EXIT_AT: the process ends here');
    process.kill(process.pid, 'SIGKILL');
  };
}
