/**
 * The strict one-second request window (SPEC 8.1 item 1), aligned to wall-clock seconds, with
 * no burst allowance. A scope's window for second S is a set of L slot documents
 * `w:<scope>:<S>:<k>`, k < L; a request is admitted by inserting one of them. Only a unique
 * insert is relied on: FerretDB 1.x (our local store) does not apply concurrent updates
 * atomically, but it never lets two inserts of one `_id` both succeed. So at most L requests
 * are admitted in a second on every replica together, a refused request writes nothing, and a
 * request refused by a later check gives its slot back by deleting it.
 */

export function windowSecond(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}

export function windowSlotId(scopeKey: string, second: number, slot: number): string {
  return `w:${scopeKey}:${second}:${slot}`;
}

export function windowSlotIds(scopeKey: string, second: number, limit: number): string[] {
  return Array.from({ length: limit }, (_, k) => windowSlotId(scopeKey, second, k));
}

/** Slots of a window not present in the store (never taken, or given back). */
export function freeSlotIds(all: string[], existing: Iterable<string>): string[] {
  const taken = new Set(existing);
  return all.filter((id) => !taken.has(id));
}

/** Seconds until the next window opens, as a Retry-After / RateLimit `t` value (at least 1). */
export function secondsUntilNextWindow(nowMs: number): number {
  return Math.max(1, Math.ceil(((windowSecond(nowMs) + 1) * 1000 - nowMs) / 1000));
}

/**
 * The window slots this process inserted, by second, so that old windows are deleted by `_id`
 * (an index lookup on every store) instead of by a filter on the second, which FerretDB answers by
 * reading every slot document. A window is old once its second is more than `keepSeconds` past.
 */
export class WindowSlotsTakenHere {
  private readonly bySecond = new Map<number, string[]>();

  add(second: number, slotId: string): void {
    const ids = this.bySecond.get(second);
    if (ids) ids.push(slotId);
    else this.bySecond.set(second, [slotId]);
  }

  /** The slots of windows older than `second - keepSeconds`, forgotten here as they are returned. */
  takeOld(second: number, keepSeconds = 2): string[] {
    const old: string[] = [];
    for (const [s, ids] of this.bySecond) {
      if (s >= second - keepSeconds) continue;
      old.push(...ids);
      this.bySecond.delete(s);
    }
    return old;
  }
}
