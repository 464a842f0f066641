import type { StoreAdmission } from '../limits/requestAdmission';
import type { RateVerdict } from './clientRateLimit';

/**
 * Per-person request rate of the tool server: every request made with a person's token (any
 * JSON-RPC method, not only tool calls) takes a slot of the person's strict one-second window
 * (core/limits/strictWindow.ts: unique inserts in the store, so every API replica shares it
 * and a refused request writes nothing). M2M clients have their own per-credential rate.
 */
export const personScopeKey = (userId: string) => `person:${userId}`;

export async function admitPersonRequest(
  admission: StoreAdmission,
  userId: string,
  perSecond: number,
  now: () => number = admission.now,
): Promise<RateVerdict> {
  const got = await admission.admitWindow(personScopeKey(userId), perSecond, now);
  return got.admitted ? { ok: true } : { ok: false, retryAfterSeconds: got.retryAfterSeconds };
}
