import { z } from 'zod';
import { ISO_INSTANT_FORMS, parseIsoInstant } from '../../core/isoInstant';

/**
 * A query parameter naming an instant (core/isoInstant.ts), read as a Date. The reference
 * states its two forms by format rather than by the validators' long patterns.
 */
export function instantParameter(description: string) {
  return z
    .string()
    .transform((text, ctx) => {
      const instant = parseIsoInstant(text);
      if (instant) return instant;
      ctx.addIssue({ code: 'custom', message: `expected ${ISO_INSTANT_FORMS}` });
      return z.NEVER;
    })
    .meta({ anyOf: [{ format: 'date' }, { format: 'date-time' }], description })
    .optional();
}
