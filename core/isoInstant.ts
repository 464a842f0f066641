import { z } from 'zod';

/**
 * The one reading of an instant a caller writes as text (the usage range's `from` and `to`):
 * an ISO 8601 calendar date, which means its UTC midnight, or an RFC 3339 date-time with its
 * offset. Anything else, a date-time without an offset included, reads as no instant: a local
 * time would mean a different instant on every caller's machine.
 */
const DATE = z.iso.date();
const DATE_TIME = z.iso.datetime({ offset: true });

export const ISO_INSTANT_FORMS = 'an ISO 8601 date (2026-11-27, its UTC midnight) or date-time with an offset (2026-11-27T09:30:00Z)';

export function parseIsoInstant(text: string): Date | null {
  if (DATE.safeParse(text).success) return new Date(`${text}T00:00:00.000Z`);
  if (DATE_TIME.safeParse(text).success) return new Date(text);
  return null;
}
