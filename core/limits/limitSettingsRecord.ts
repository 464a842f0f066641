import type { ScopeType } from './limitTable';

/** Who changed a limit: the operator (CLI) may raise, a customer (console) may only lower. */
export type Actor = 'operator' | 'customer';

export type OverrideKind = 'cap' | 'block' | 'cleared';

export interface LimitOverride {
  operation: string;
  scopeType: ScopeType;
  scopeId: string;
  kind: OverrideKind;
  requestsPerMinute: number | null;
  updatedAt: Date;
  /** Who set it; an override stored without one was set by the operator. */
  setBy?: Actor;
}

export interface LimitSettingsDoc {
  _id: string;
  /** Optimistic-concurrency version: FerretDB has no transactions and no conditional $pull. */
  v: number;
  requestsPerSecond: number | null;
  maxConcurrency: number | null;
  /** Set when an organization-wide rate was in force and was cleared. */
  rateCleared: boolean;
  overrides: LimitOverride[];
}
