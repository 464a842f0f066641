/**
 * A clock a test moves by hand, given to an app's admission (`new StoreAdmission(stores.limits, clock.now, logger)`):
 * requests land in the window second the test chooses and a lease's TTL runs out when the test
 * says, however slowly the machine answers. It only moves forward.
 */
export class TestClock {
  private t: number;

  constructor(start = Date.now()) {
    this.t = start;
  }

  readonly now = (): number => this.t;

  advance(ms: number): void {
    this.t += ms;
  }

  /** Moves to `offsetMs` into the next whole second and returns that second (seconds since the epoch). */
  nextSecond(offsetMs = 0): number {
    const second = Math.floor(this.t / 1000) + 1;
    this.t = second * 1000 + offsetMs;
    return second;
  }
}
