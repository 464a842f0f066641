/**
 * `RateLimit-Policy` and `RateLimit` response headers in the syntax of the IETF httpapi
 * ratelimit-headers draft: lists of named policies, one per limit that can refuse the request, e.g.
 *   RateLimit-Policy: "baseline";q=25;w=1, "in_flight";q=25;qu="concurrent-requests", "contact_retrieval_jobs.create";q=10;w=1
 *   RateLimit: "baseline";r=12;t=1, "in_flight";r=24, "contact_retrieval_jobs.create";r=9;t=1
 * `q` quota, `w` window seconds, `qu` quota unit (requests unless said), `r` remaining quota
 * units, `t` seconds until it resets. A concurrency policy has no window and no reset.
 */
export interface RateLimitState {
  policy: string;
  quota: number;
  /** Absent for a concurrency policy. */
  windowSeconds?: number;
  remaining: number;
  /** Absent for a concurrency policy. */
  resetSeconds?: number;
  quotaUnit?: 'concurrent-requests';
}

function sfString(s: string): string {
  // Policy names rarely hold a character to escape; every answer quotes several of them.
  if (!s.includes('"') && !s.includes('\\')) return `"${s}"`;
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

export function rateLimitPolicyHeader(states: RateLimitState[]): string {
  return states
    .map((s) => {
      const window = s.windowSeconds === undefined ? '' : `;w=${s.windowSeconds}`;
      const unit = s.quotaUnit ? `;qu=${sfString(s.quotaUnit)}` : '';
      return `${sfString(s.policy)};q=${s.quota}${window}${unit}`;
    })
    .join(', ');
}

export function rateLimitHeader(states: RateLimitState[]): string {
  return states
    .map((s) => `${sfString(s.policy)};r=${Math.max(0, s.remaining)}${s.resetSeconds === undefined ? '' : `;t=${Math.max(0, s.resetSeconds)}`}`)
    .join(', ');
}

export function rateLimitHeaders(states: RateLimitState[]): Record<string, string> {
  if (states.length === 0) return {};
  return { 'RateLimit-Policy': rateLimitPolicyHeader(states), RateLimit: rateLimitHeader(states) };
}

/** A RateLimit header parsed back into its policies' `r` and `t` (clients, tests). */
export function parseRateLimit(header: string): Map<string, { remaining: number; resetSeconds?: number }> {
  const out = new Map<string, { remaining: number; resetSeconds?: number }>();
  for (const m of header.matchAll(/"((?:[^"\\]|\\.)*)";r=(\d+)(?:;t=(\d+))?/g)) {
    out.set(m[1].replace(/\\(.)/g, '$1'), { remaining: Number(m[2]), resetSeconds: m[3] === undefined ? undefined : Number(m[3]) });
  }
  return out;
}
