import type { OAuthStores } from './store';

/**
 * Per-credential rate limit of an M2M client (SPEC 5.2 item 5, 8.3 rule 4): a strict
 * one-minute window counted in the store, so every API replica shares it. A refused request
 * does not consume capacity. One document per client: the window is reset in place.
 */
export const CLIENT_RATE_WINDOW_MS = 60_000;

export type RateVerdict = { ok: true } | { ok: false; retryAfterSeconds: number };

export function windowStartOf(nowMs: number): number {
  return nowMs - (nowMs % CLIENT_RATE_WINDOW_MS);
}

export function retryAfterSeconds(nowMs: number): number {
  return Math.max(1, Math.ceil((windowStartOf(nowMs) + CLIENT_RATE_WINDOW_MS - nowMs) / 1000));
}

export async function admitClientRequest(stores: OAuthStores, clientId: string, perMinute: number, now: Date): Promise<RateVerdict> {
  const nowMs = now.getTime();
  let windowStart = windowStartOf(nowMs);
  for (let attempt = 0; attempt < 3; attempt++) {
    if (await stores.oauth.countInRateWindow(clientId, windowStart, perMinute)) return { ok: true };
    if (await stores.oauth.restartRateWindow(clientId, windowStart)) return { ok: true };
    const current = await stores.oauth.findRateWindow(clientId);
    if (current && current.windowStart > windowStart) {
      // A request of the next minute reached the store first (concurrent requests across a
      // minute boundary): this one counts in that newer window rather than being refused.
      windowStart = current.windowStart;
      continue;
    }
    if (current?.windowStart === windowStart && current.count >= perMinute) return { ok: false, retryAfterSeconds: retryAfterSeconds(nowMs) };
    if (current) continue; // reset by another request meanwhile: count again
    if (await stores.oauth.insertRateWindow(clientId, windowStart)) return { ok: true };
    // Another replica created the window first: count against it.
  }
  return { ok: false, retryAfterSeconds: retryAfterSeconds(nowMs) };
}
