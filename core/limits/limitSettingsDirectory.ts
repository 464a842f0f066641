import type { LimitsStore } from './store';

/**
 * Which organizations have limit settings of their own, as one replica knows it: most never
 * have their limits changed, and a new organization's first request would otherwise read its
 * settings (a store round trip between its key read and its slot inserts) only to find none.
 *
 * Every settings change rewrites one mark (`limit_settings_marks`) after its settings are
 * stored. A replica reads the mark (one find by `_id`, whatever the number of organizations)
 * and reads the list of organizations with settings again only when the mark's token differs
 * from the one it read before that list. The list then holds every settings document stored
 * before the mark read began, so it vouches for an organization's absence for READ_CACHE_MS
 * from that moment: the bound of the settings' read cache. A change returns only after
 * READ_CACHE_MS past its mark (limitSettings.ts), by then no replica answers "defaults" from a
 * list that lacks it. Times are the replica's own monotonic clock, never compared across
 * replicas, so clock skew between them does not matter.
 */

/** A refresh starts ahead once this share of READ_CACHE_MS has passed since the last check: under load the list never goes stale. */
const REFRESH_AFTER_SHARE = 0.5;
/**
 * The list is read again this often even when the mark is unchanged: a change whose writer
 * stopped between storing its settings and writing the mark (its command failed) is then still
 * honoured within this time.
 */
export const RELOAD_EVERY_MS = 60_000;

export interface DirectorySnapshot {
  /** Organizations with a stored settings document. */
  readonly orgIds: ReadonlySet<string>;
  /** The mark's token read before the list. */
  readonly mark: string | null;
  /** When the latest mark read that vouched for the list started. */
  readonly checkedAt: number;
  /** When the mark read before the list started. */
  readonly loadedAt: number;
}

export type DirectoryAnswer = 'defaults' | 'own' | 'unknown';

/** What the snapshot says of an organization at `now`: no settings of its own, settings to read, or unknown (stale, none, or no cache). */
export function directoryAnswer(snapshot: DirectorySnapshot | undefined, orgId: string, now: number, ttlMs: number): DirectoryAnswer {
  if (!snapshot || ttlMs <= 0 || now - snapshot.checkedAt >= ttlMs) return 'unknown';
  return snapshot.orgIds.has(orgId) ? 'own' : 'defaults';
}

/** Whether a snapshot in use should be checked again now (it still answers meanwhile). */
export function refreshDue(snapshot: DirectorySnapshot | undefined, now: number, ttlMs: number): boolean {
  return !snapshot || now - snapshot.checkedAt >= ttlMs * REFRESH_AFTER_SHARE;
}

/**
 * The snapshot a mark read vouches for (the read started at `checkedAt`), or undefined when the
 * list must be read again: the mark changed, or the list is older than RELOAD_EVERY_MS.
 */
export function vouchedSnapshot(snapshot: DirectorySnapshot | undefined, mark: string | null, checkedAt: number): DirectorySnapshot | undefined {
  if (!snapshot || snapshot.mark !== mark || checkedAt - snapshot.loadedAt >= RELOAD_EVERY_MS) return undefined;
  return { ...snapshot, checkedAt };
}

/**
 * How often a kept directory looks whether its snapshot is due: every quarter of READ_CACHE_MS,
 * at most four times a second. With READ_CACHE_MS under a second (the tests' 100 ms) the snapshot
 * is then stale part of the time, and a request meanwhile waits for the check it needs (shared by
 * every request meanwhile) instead of a replica checking the store twenty times a second idle.
 */
export function directoryTickMs(ttlMs: number): number {
  return Math.max(250, Math.floor(ttlMs / 4));
}

/** One app's directory (LimitSettingsReads holds it); one check of the store at a time. */
export class LimitSettingsDirectory {
  private snapshot: DirectorySnapshot | undefined;
  private refreshing: Promise<DirectorySnapshot | undefined> | undefined;

  constructor(
    private readonly store: Pick<LimitsStore, 'limitSettingsMark' | 'organizationsWithLimitSettings'>,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /**
   * Whether `orgId` has no limit settings of its own: answered at once while the snapshot is
   * fresh, else once a check of the store has answered (shared by every request meanwhile).
   * False when that is not known (READ_CACHE_MS 0, a failed or slow check): read the settings.
   */
  atDefaults(orgId: string, ttlMs: number): boolean | Promise<boolean> {
    if (ttlMs <= 0) return false;
    const now = this.clock();
    const answer = directoryAnswer(this.snapshot, orgId, now, ttlMs);
    if (answer === 'unknown') return this.refresh().then((s) => directoryAnswer(s, orgId, this.clock(), ttlMs) === 'defaults');
    if (refreshDue(this.snapshot, now, ttlMs)) void this.refresh();
    return answer === 'defaults';
  }

  /**
   * Checks the store whenever the snapshot is due, until stopped: a replica's first requests
   * after a quiet spell then find it fresh instead of waiting for a check between their key read
   * and their slot inserts. A read of the mark every half to three quarters of READ_CACHE_MS (on
   * ticks at least 250 ms apart: directoryTickMs), idle or not.
   */
  keepCurrent(ttlMs: number): { stop: () => void } {
    if (ttlMs <= 0) return { stop: () => undefined };
    const check = () => {
      if (refreshDue(this.snapshot, this.clock(), ttlMs)) void this.refresh();
    };
    check();
    // A tick every quarter of READ_CACHE_MS finds the snapshot due within a quarter of its due time,
    // while it has half of READ_CACHE_MS left. Unreferenced: the directory alone keeps no process alive.
    const timer = setInterval(check, directoryTickMs(ttlMs)).unref();
    return { stop: () => clearInterval(timer) };
  }

  private refresh(): Promise<DirectorySnapshot | undefined> {
    this.refreshing ??= this.check().then(
      (s) => {
        this.snapshot = s;
        this.refreshing = undefined;
        return s;
      },
      // The old snapshot ages out; until a check succeeds, requests read their settings.
      () => {
        this.refreshing = undefined;
        return undefined;
      },
    );
    return this.refreshing;
  }

  private async check(): Promise<DirectorySnapshot> {
    const checkedAt = this.clock();
    const mark = await this.store.limitSettingsMark();
    const vouched = vouchedSnapshot(this.snapshot, mark, checkedAt);
    if (vouched) return vouched;
    const orgIds = new Set(await this.store.organizationsWithLimitSettings());
    return { orgIds, mark, checkedAt, loadedAt: checkedAt };
  }
}
