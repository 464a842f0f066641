/**
 * Command-line options of `npm run chaos`. Every run is bounded: in time (the load phase and
 * the drain that follows) and in count (jobs started).
 */
export interface ChaosOptions {
  /** Seconds of load and faults. */
  durationSeconds: number;
  /** Seconds the run waits after the load for every job to finish and every event to arrive. */
  drainSeconds: number;
  /** At most this many contact-retrieval jobs are started. */
  maxJobs: number;
  /** Organizations driving load (one more, the burst tenant, tests the rate limit). */
  tenants: number;
  /** Keep the run's folder (logs, store and Temporal files) after it ends. */
  keep: boolean;
}

const USAGE = `npm run chaos -- [--duration 180] [--drain 240] [--max-jobs 60] [--tenants 3] [--keep]`;

export function parseChaosOptions(argv: readonly string[]): ChaosOptions {
  const o: ChaosOptions = { durationSeconds: 180, drainSeconds: 240, maxJobs: 60, tenants: 3, keep: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v <= 0) throw new Error(`${a} needs a positive integer\n${USAGE}`);
      return v;
    };
    if (a === '--duration') o.durationSeconds = num();
    else if (a === '--drain') o.drainSeconds = num();
    else if (a === '--max-jobs') o.maxJobs = num();
    else if (a === '--tenants') o.tenants = num();
    else if (a === '--keep') o.keep = true;
    else throw new Error(`unknown option ${a}\n${USAGE}`);
  }
  return o;
}
