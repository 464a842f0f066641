/**
 * Whether a store error (or one write error of a bulk insert) is a unique-index violation, in
 * every spelling our stores use:
 * - MongoDB: code 11000 (11001 from old servers on updates), codeName `DuplicateKey`, also as the
 *   code of each entry in a bulk write's `writeErrors` (and of its `err`);
 * - mongoose: the driver's error as is, or wrapped (`cause`, `errorResponse`);
 * - FerretDB 1.x (checked against 1.24.2): inserts and upserts answer 11000 like MongoDB, but an
 *   update that makes a document collide on a unique secondary index answers code 1
 *   (`InternalError`) whose message carries SQLite's `UNIQUE constraint failed`.
 */
export function isDuplicateKeyError(err: unknown): boolean {
  return isDuplicate(err, 0);
}

const DUPLICATE_CODES = new Set([11000, 11001]);
const DUPLICATE_MESSAGE = /E11000|UNIQUE constraint failed|duplicate key error/;

function isDuplicate(err: unknown, depth: number): boolean {
  if (typeof err !== 'object' || err === null || depth > 3) return false;
  const e = err as { code?: unknown; codeName?: unknown; message?: unknown; errmsg?: unknown; cause?: unknown; errorResponse?: unknown; err?: unknown };
  if (typeof e.code === 'number' && DUPLICATE_CODES.has(e.code)) return true;
  if (e.codeName === 'DuplicateKey') return true;
  for (const text of [e.message, e.errmsg]) if (typeof text === 'string' && DUPLICATE_MESSAGE.test(text)) return true;
  return [e.cause, e.errorResponse, e.err].some((inner) => isDuplicate(inner, depth + 1));
}
