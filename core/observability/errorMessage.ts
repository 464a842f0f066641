/** The message of something thrown, for a log line (a thrown non-Error is shown as text). */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
