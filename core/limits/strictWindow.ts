/**
 * The strict one-second request window (SPEC 8.1 item 1), aligned to wall-clock seconds, with
 * no burst allowance. A scope's counter document holds one field per second (`w.<epoch
 * second>`); admission is a single conditional update that increments the current second's
 * field only while it is below the limit, so a refused request changes nothing and every API
 * replica sees the same count. Upsert creates the document; when the document exists but the
 * condition fails, the upsert's insert collides on `_id` (E11000), which means "refused".
 */

export function windowSecond(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}

export function windowField(second: number): string {
  return `w.${second}`;
}

/** Matches only while the second's count is below the limit (a missing field counts as 0). */
export function windowAdmitCondition(second: number, limit: number): Record<string, unknown> {
  return { [windowField(second)]: { $not: { $gte: limit } } };
}

/**
 * Counts the request in its second. Seconds older than the previous one are dropped as we go
 * (never the previous one: a request that read the clock just before the boundary may still
 * be counted there).
 */
export function windowAdmitUpdate(second: number): { $inc: Record<string, number>; $unset: Record<string, ''> } {
  return { $inc: { [windowField(second)]: 1 }, $unset: { [windowField(second - 2)]: '', [windowField(second - 3)]: '' } };
}

/** Fields of seconds long gone, left behind when a scope went quiet; removed lazily. */
export function staleWindowFields(w: Record<string, number> | undefined, second: number): string[] {
  return Object.keys(w ?? {}).filter((k) => Number(k) < second - 1).map((k) => `w.${k}`);
}

export function countInWindow(w: Record<string, number> | undefined, second: number): number {
  return w?.[String(second)] ?? 0;
}

/** Seconds until the next window opens, as a Retry-After / RateLimit `t` value (at least 1). */
export function secondsUntilNextWindow(nowMs: number): number {
  return Math.max(1, Math.ceil(((windowSecond(nowMs) + 1) * 1000 - nowMs) / 1000));
}
