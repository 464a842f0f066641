/**
 * `RateLimit-Policy` and `RateLimit` response headers in the syntax of the IETF httpapi
 * ratelimit-headers draft: lists of named policies, e.g.
 *   RateLimit-Policy: "baseline";q=25;w=1, "contact_retrieval_jobs.create";q=10;w=1
 *   RateLimit: "baseline";r=12;t=1, "contact_retrieval_jobs.create";r=9;t=1
 * `q` quota, `w` window seconds, `r` remaining quota units, `t` seconds until it resets.
 */
export interface RateLimitState {
  policy: string;
  quota: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

function sfString(s: string): string {
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

export function rateLimitPolicyHeader(states: RateLimitState[]): string {
  return states.map((s) => `${sfString(s.policy)};q=${s.quota};w=${s.windowSeconds}`).join(', ');
}

export function rateLimitHeader(states: RateLimitState[]): string {
  return states.map((s) => `${sfString(s.policy)};r=${Math.max(0, s.remaining)};t=${Math.max(0, s.resetSeconds)}`).join(', ');
}

export function rateLimitHeaders(states: RateLimitState[]): Record<string, string> {
  if (states.length === 0) return {};
  return { 'RateLimit-Policy': rateLimitPolicyHeader(states), RateLimit: rateLimitHeader(states) };
}
