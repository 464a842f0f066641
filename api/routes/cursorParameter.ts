import { z } from 'zod';
import { CURSOR_PATTERN, MAX_CURSOR_LENGTH } from '../../core/pageCursor';

/**
 * A page cursor as a request carries it. The reference publishes the cursor's alphabet and
 * length; the schema itself takes any string, so that every malformed or forged cursor reaches
 * its list's decoder and is answered 400 `invalid_cursor` (SPEC 7.2), not 422.
 */
export function cursorParameter(description: string, pattern = CURSOR_PATTERN) {
  return z.string().meta({ pattern, maxLength: MAX_CURSOR_LENGTH, description }).optional();
}
