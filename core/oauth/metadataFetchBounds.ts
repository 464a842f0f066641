/**
 * What keeps one process's Client ID Metadata Document fetches bounded: at most `maxInFlight`
 * at once (one more is refused at once, never queued behind slow documents), and a URL whose
 * fetch failed is not fetched again for `failureTtlMs`, whoever asks (the failure is
 * remembered, not the asker). The per-address rate of fetches is counted in the store
 * (core/limits/clientAddressLimits.ts), so every replica shares it.
 */
export interface FetchBoundSettings {
  maxInFlight: number;
  failureTtlMs: number;
  /** Failures remembered at most; the oldest is forgotten first. */
  maxRememberedFailures?: number;
}

export class MetadataFetchBounds {
  private inFlight = 0;
  private readonly failures = new Map<string, { reason: string; until: number }>();

  constructor(
    private readonly settings: FetchBoundSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Why the URL's last fetch failed, while that is remembered. */
  recentFailure(url: string): string | undefined {
    const failure = this.failures.get(url);
    if (!failure) return undefined;
    if (failure.until <= this.now()) {
      this.failures.delete(url);
      return undefined;
    }
    return failure.reason;
  }

  rememberFailure(url: string, reason: string): void {
    this.failures.delete(url);
    const max = this.settings.maxRememberedFailures ?? 10_000;
    while (this.failures.size >= max) this.failures.delete(this.failures.keys().next().value as string);
    this.failures.set(url, { reason, until: this.now() + this.settings.failureTtlMs });
  }

  /** Takes a place for one fetch; false (taking nothing) when `maxInFlight` are running. */
  tryStart(): boolean {
    if (this.inFlight >= this.settings.maxInFlight) return false;
    this.inFlight += 1;
    return true;
  }

  /** Gives back the place of a fetch that ended (or was not made after all). */
  finish(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  get running(): number {
    return this.inFlight;
  }

  forgetFailures(): void {
    this.failures.clear();
  }
}
