/**
 * The lifetimes a person picks from in the console (DECISIONS.md "Organization console"): when a
 * new key expires, and how long the old key of a rotation keeps working beside the new one.
 */
const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

export const KEY_EXPIRY_CHOICES = [
  { value: 'never', label: 'Never', ms: null },
  { value: '30d', label: 'In 30 days', ms: 30 * DAY_MS },
  { value: '90d', label: 'In 90 days', ms: 90 * DAY_MS },
  { value: '1y', label: 'In 1 year', ms: 365 * DAY_MS },
] as const;

export type KeyExpiryChoice = (typeof KEY_EXPIRY_CHOICES)[number]['value'];

export const OLD_KEY_END_CHOICES = [
  { value: 'now', label: 'Now', ms: 0 },
  { value: '1h', label: 'In 1 hour', ms: HOUR_MS },
  { value: '24h', label: 'In 24 hours', ms: DAY_MS },
  { value: '7d', label: 'In 7 days', ms: 7 * DAY_MS },
] as const;

export type OldKeyEndChoice = (typeof OLD_KEY_END_CHOICES)[number]['value'];

/** The expiry a choice gives a key made at `now`; null for "Never". */
export function expiryOf(choice: KeyExpiryChoice, now: Date): Date | null {
  const ms = KEY_EXPIRY_CHOICES.find((c) => c.value === choice)?.ms ?? null;
  return ms === null ? null : new Date(now.getTime() + ms);
}

/** How long the old key of a rotation keeps working. */
export function oldKeyEndMs(choice: OldKeyEndChoice): number {
  return OLD_KEY_END_CHOICES.find((c) => c.value === choice)?.ms ?? 0;
}
