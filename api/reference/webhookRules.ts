import { MAX_ATTEMPTS, SPEC_RETRY_DELAYS_MS } from '../../core/webhooks/retrySchedule';
import { REPLAYS_PER_HOUR } from '../../core/webhooks/replayAllowance';
import { ATTEMPT_TIMEOUT_MS } from '../../core/webhooks/sendAttempt';

/**
 * The webhook rules an integrator relies on, stated once from the code's own constants: the
 * reference's event description and docs/webhooks.md quote these sentences word for word
 * (test/unit/docsAgreement.test.ts holds them together).
 */
function duration(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} m`;
  return `${ms / 1000} s`;
}

const delays = SPEC_RETRY_DELAYS_MS.map(duration);

export const WEBHOOK_RULES = {
  endpoints:
    'A workspace owns at most one active webhook endpoint; an event goes to the endpoint of its workspace that is active when the job finishes (none active: no delivery, the result is still readable).',
  retries: `Any 2xx is success; anything else is retried after ${delays.slice(0, -1).join(', ')} and ${delays[delays.length - 1]}, each plus jitter that only delays: ${MAX_ATTEMPTS} attempts in all, then the event is dead-lettered.`,
  attemptTime: `Answer within ${ATTEMPT_TIMEOUT_MS / 1000} s: that is an attempt's whole time limit (DNS, connect, TLS and the response), and redirects are failures.`,
  replays: `A dead-lettered delivery can be replayed as a fresh run of ${MAX_ATTEMPTS} attempts to the workspace's current active endpoint, at most ${REPLAYS_PER_HOUR} replays per endpoint in any hour.`,
} as const;
