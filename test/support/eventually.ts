/**
 * The one way tests wait for something that happens elsewhere (another process, a worker, a
 * timer): `probe` is asked again and again until it gives a value (anything but `undefined` or
 * `false`), which is returned; after `timeoutMs` the wait fails naming `what`. A probe that
 * throws fails the wait at once, so an assertion inside a probe is never swallowed (a probe of
 * a server that may not be listening yet catches its own connection errors). Waiting on the
 * condition itself instead of a fixed sleep keeps tests right on a slow machine and quick on a
 * fast one.
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
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
