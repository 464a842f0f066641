/**
 * The one way tests wait for something that happens elsewhere (another process, a worker, a
 * timer): `probe` is asked again and again until it gives a value (anything but `undefined` or
 * `false`), which is returned. A probe that throws counts as "not yet" (a server still
 * starting refuses connections); its last error is in the timeout message, with `what`.
 * Waiting on the condition itself instead of a fixed sleep keeps tests right on a slow
 * machine and quick on a fast one.
 */
export interface EventuallyOptions {
  timeoutMs?: number;
  /** Pause between probes; small, since a probe is usually one cheap read. */
  intervalMs?: number;
}

export async function eventually<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 30_000, intervalMs = 50 }: EventuallyOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
