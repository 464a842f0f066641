import type { Config } from './config';
import { LimitSettingsReads } from './limits/limitSettings';
import { StoreAdmission } from './limits/requestAdmission';
import { createPeopleIndexes, type PeopleIndexes } from './talent/peopleIndexes';
import type { UsageCounters } from './usage/usageCounters';

/**
 * What one app's composition root (api/server.ts, a test, a benchmark's stack) builds once and
 * passes down: its settings and the state that belongs to it rather than to a module, so two
 * apps with different settings live side by side in one process.
 */
export interface Deps {
  readonly config: Config;
  /** Admission against the store: the organization's window and in-flight places, each operation's window. */
  readonly admission: StoreAdmission;
  /** The organizations' limit settings, through a read cache. */
  readonly limitSettings: LimitSettingsReads;
  /** The people indexes searches and matches read. */
  readonly people: PeopleIndexes;
  /** The usage counters every operation run is counted in; absent where nothing is counted. */
  readonly usage?: UsageCounters;
}

export function createDeps(config: Config, parts: Partial<Omit<Deps, 'config'>> = {}): Deps {
  return {
    config,
    admission: parts.admission ?? new StoreAdmission(),
    limitSettings: parts.limitSettings ?? new LimitSettingsReads(),
    people: parts.people ?? createPeopleIndexes(),
    usage: parts.usage,
  };
}
