import { LRUCache } from 'lru-cache';
import { lazyLru } from '../store/lazyLru';
import type { Model } from 'mongoose';
import type { Document } from 'mongodb';
import { Turns } from '../inTurn';
import { insertOnce } from '../store/inserts';
import { typedCollection } from '../store/typedCollection';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any model whose _id is a string
type ChainModel = Model<any>;

/**
 * An append-only chain of entries `_id = <chainId>:<seq>` with contiguous sequence numbers.
 * It is how this code gets atomic read-modify-write on every store it runs on: FerretDB 1.x
 * (SQLite) loses concurrent updates, even `$inc` and conditional updates, but its unique
 * `_id` index holds, so "insert entry seq+1" succeeds for exactly one writer. The state
 * after an entry lives IN the entry; the head is the current state.
 */
export function entryId(chainId: string, seq: number): string {
  return `${chainId}:${seq}`;
}

/** How many chains one app remembers a head for: every ledger, quota window, … it touched. */
export const HEAD_HINTS_MAX = 50_000;

/**
 * The latest head one app (or worker) saw per chain: a hint only (probing verifies it), so it
 * is never wrong, and forgetting one only costs a cold probe. Bounded: chain ids include
 * organizations and hourly quota windows, so a long-running process would otherwise keep every
 * one it met. Held by what remembers a chain family (credits.ts LedgerHeads, quotas.ts
 * QuotaWindows), which the composition root builds once per app (core/deps.ts).
 */
export class ChainHeads {
  private readonly hints: () => LRUCache<string, number>;

  /** The app's writers of one chain take turns (core/inTurn.ts): they would only race each other for the next seq. */
  readonly turns = new Turns();

  /** How many chains it remembers at most. */
  readonly max: number;

  constructor(max = HEAD_HINTS_MAX) {
    this.max = max;
    this.hints = lazyLru<string, number>({ max });
  }

  /** The head last seen for the chain (an append there may still conflict). */
  known(chainId: string): number | undefined {
    return this.hints().get(chainId);
  }

  /** Notes the head a probe found (it may be lower than a hint whose entries were deleted). */
  found(chainId: string, seq: number): void {
    if (seq >= 0) this.hints().set(chainId, seq);
  }

  /** Notes an appended seq; one appended earlier and noted late never moves the hint back. */
  appended(chainId: string, seq: number): void {
    this.hints().set(chainId, Math.max(seq, this.hints().get(chainId) ?? -1));
  }

  /** Forgets a hint that turned out stale (another writer appended). */
  forget(chainId: string): void {
    this.hints().delete(chainId);
  }
}

async function exists(model: ChainModel, chainId: string, seq: number): Promise<boolean> {
  return (await model.exists({ _id: entryId(chainId, seq) })) !== null;
}

/**
 * The head sequence number of the chain, or -1 when it is empty. Gallops forward from the
 * hint (or the one `heads` holds, whichever is further), then binary-searches, so a cold
 * process needs O(log n) lookups; `heads` learns the head found.
 */
export async function headSeq(model: ChainModel, chainId: string, hint = -1, heads?: ChainHeads): Promise<number> {
  let lo = Math.max(hint, heads?.known(chainId) ?? -1);
  if (lo >= 0 && !(await exists(model, chainId, lo))) lo = -1;
  let step = 1;
  while (await exists(model, chainId, lo + step)) {
    lo += step;
    step *= 2;
  }
  let hi = lo + step; // known absent
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (await exists(model, chainId, mid)) lo = mid;
    else hi = mid;
  }
  heads?.found(chainId, lo);
  return lo;
}

export async function readEntry<T>(model: ChainModel, chainId: string, seq: number): Promise<T | null> {
  if (seq < 0) return null;
  return model.findById(entryId(chainId, seq)).lean<T>();
}

export type AppendOutcome = 'appended' | 'conflict';

interface ChainEntry extends Document {
  _id: string;
  chainId: string;
  seq: number;
}

/**
 * Inserts entry `seq`. 'conflict' when another writer took that seq (or another unique
 * index of the collection refused it: the caller looks at why). `heads` learns an appended seq.
 */
export async function appendEntry(model: ChainModel, chainId: string, seq: number, doc: Record<string, unknown>, heads?: ChainHeads): Promise<AppendOutcome> {
  if (!(await insertOnce(typedCollection<ChainEntry>(model), { ...doc, _id: entryId(chainId, seq), chainId, seq }))) return 'conflict';
  heads?.appended(chainId, seq);
  return 'appended';
}
