import type { Logger } from './observability/logger';
import { isStoreUnavailable } from './store/storeUnavailable';

/**
 * Runs `pass` every `intervalMs` (the next one `intervalMs` after the last ended), logging a
 * failed pass instead of stopping: a store outage is a warning, anything else an error. The
 * workflow starter and the mail sender run this way in every API replica and worker.
 */
export function runEvery(intervalMs: number, pass: () => Promise<unknown>, what: string, logger: Logger): { stop: () => Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const tick = () => {
    running = pass()
      .catch((err) => {
        const level = isStoreUnavailable(err) ? 'warn' : 'error';
        logger[level]({ err: { name: (err as Error)?.name, message: (err as Error)?.message } }, `${what} pass failed`);
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  timer = setTimeout(tick, intervalMs);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
