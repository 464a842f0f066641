import { ProviderUnavailable } from './contactProvider';

/**
 * Bounded retries of transient provider failures inside one activity attempt: exponential
 * backoff with full jitter, honouring the provider's Retry-After up to a ceiling. After
 * `maxAttempts` the failure is final for the people concerned.
 */
export interface ProviderRetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Delay before attempt `attempt + 1` (attempt counts from 1). */
export function retryDelayMs(policy: ProviderRetryPolicy, attempt: number, err: ProviderUnavailable, random: () => number = Math.random): number {
  if (err.retryAfterMs !== undefined) return Math.min(policy.maxDelayMs, Math.max(0, err.retryAfterMs));
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // Half fixed, half jitter: never zero, so retries of many workers spread out.
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** Parses a Retry-After header (seconds or HTTP date) into milliseconds. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export async function withProviderRetries<T>(
  policy: ProviderRetryPolicy,
  call: () => Promise<T>,
  hooks: { signal?: AbortSignal; onRetry?: (attempt: number, err: ProviderUnavailable) => void } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (!(err instanceof ProviderUnavailable) || attempt >= policy.maxAttempts || hooks.signal?.aborted) throw err;
      hooks.onRetry?.(attempt, err);
      await sleep(retryDelayMs(policy, attempt, err), hooks.signal);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
