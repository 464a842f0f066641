import type { Connection } from 'mongoose';
import { appendEntry, entryId, headSeq, readEntry, type AppendOutcome, type ChainHeads } from './chain';
import { typedCollection } from '../store/typedCollection';
import { creditModels, type LedgerEntryRecord } from './models';
import type { OrganizationRecord } from '../tenancy/store';

export type { AgentSpendState, LedgerEntryRecord } from './models';

/**
 * The credits area's store: the one module that reads and writes `credit_ledger`. It answers
 * with plain records; funding rules, charges and budgets live with the callers.
 */

/** An entry before the chain gives it its place (`_id`, `chainId`, `seq`). */
export type NewLedgerEntry = Omit<LedgerEntryRecord, '_id' | 'chainId' | 'seq'>;

/** The credits area's store on the root's connection (core/deps.ts `createStores`). */
export function createCreditStore(connection: Connection) {
  const { ledger: LedgerEntry } = creditModels(connection);
  const entries = typedCollection<LedgerEntryRecord>(LedgerEntry);
  // The mirror's fields belong to the ledger, the rest of the organization to core/tenancy; they
  // are written through the driver, which keeps the fields the tenancy schema does not declare.
  const creditMirrors = connection.collection<CreditMirror>('organizations');
  return {
    /**
     * The head seq of the organization's ledger (-1 when empty), probing from `hint` or the head
     * `heads` holds, which learn the head found.
     * FerretDB: concurrent updates are lost, so the ledger is an append-only chain of unique inserts.
     */
    ledgerHeadSeq(orgId: string, hint = -1, heads?: ChainHeads): Promise<number> {
      return headSeq(LedgerEntry, orgId, hint, heads);
    },

    /** Entry `seq` of the organization's ledger, or null. */
    readLedgerEntry(orgId: string, seq: number): Promise<LedgerEntryRecord | null> {
      return readEntry<LedgerEntryRecord>(LedgerEntry, orgId, seq);
    },

    /** Inserts entry `seq`: 'conflict' when that seq or the entry's chargeKey or receiptId is taken; `heads` learn an appended seq. */
    appendLedgerEntry(orgId: string, seq: number, entry: NewLedgerEntry, heads?: ChainHeads): Promise<AppendOutcome> {
      return appendEntry(LedgerEntry, orgId, seq, { ...entry }, heads);
    },

    /** The entry under `chargeKey` (of any kind), or null. */
    async ledgerEntryOfChargeKey(chargeKey: string): Promise<LedgerEntryRecord | null> {
      return LedgerEntry.findOne({ chargeKey }).lean<LedgerEntryRecord>();
    },

    /** The charge entry under `chargeKey`, or null. */
    async chargeEntryOfChargeKey(chargeKey: string): Promise<LedgerEntryRecord | null> {
      return LedgerEntry.findOne({ chargeKey, kind: 'charge' }).lean<LedgerEntryRecord>();
    },

    /**
     * The organization's entries `top - size + 1 .. top` (those that exist), newest first.
     * FerretDB: a `_id: {$in}` read is answered from the index; a sorted query reads every entry first.
     */
    async ledgerWindow(orgId: string, top: number, size: number): Promise<LedgerEntryRecord[]> {
      const ids: string[] = [];
      for (let seq = top; seq > top - size && seq >= 0; seq--) ids.push(entryId(orgId, seq));
      const docs = await LedgerEntry.find({ _id: { $in: ids } }).lean<LedgerEntryRecord[]>();
      return docs.sort((x, y) => y.seq - x.seq);
    },

    /** When entry `seq` of the organization's ledger was made, or null when it does not exist. */
    async ledgerEntryTime(orgId: string, seq: number): Promise<Date | null> {
      return (await LedgerEntry.findById(entryId(orgId, seq), { createdAt: 1 }).lean<Pick<LedgerEntryRecord, 'createdAt'>>())?.createdAt ?? null;
    },

    /** Every entry of these organizations' ledgers (any order): the chaos run's audit of the chains, and tests. */
    async ledgerEntriesOfOrgs(orgIds: readonly string[]): Promise<LedgerEntryRecord[]> {
      return LedgerEntry.find({ orgId: { $in: [...orgIds] } }).lean<LedgerEntryRecord[]>();
    },

    /** The entries whose chargeKey starts with `prefix` (tests: the charges of one job's chunks, `job:<job_id>:`). */
    async ledgerEntriesUnderChargeKeyPrefix(prefix: string): Promise<LedgerEntryRecord[]> {
      return LedgerEntry.find({ chargeKey: { $regex: `^${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}` } }).lean<LedgerEntryRecord[]>();
    },

    /** The organization's newest entry by a sorted query, or null (benchmark seeding; the domain probes the chain instead). */
    async newestLedgerEntryOfOrg(orgId: string): Promise<LedgerEntryRecord | null> {
      return LedgerEntry.findOne({ orgId }).sort({ orgId: 1, seq: -1 }).lean<LedgerEntryRecord>();
    },

    /** Stores entries that continue chains, unordered (benchmark seeding: the caller numbers them). */
    async insertLedgerEntries(rows: LedgerEntryRecord[]): Promise<void> {
      await entries.insertMany(rows, { ordered: false });
    },

    /** The charges connected applications made under these grants on `fromDay` or later (the allowance's UTC days). */
    async agentChargesSince(grantIds: readonly string[], fromDay: string): Promise<Array<Pick<LedgerEntryRecord, 'agentGrantId' | 'agentDay' | 'amount'>>> {
      if (!grantIds.length) return [];
      return LedgerEntry.find(
        { agentGrantId: { $in: [...grantIds] }, agentDay: { $gte: fromDay }, kind: 'charge' },
        { agentGrantId: 1, agentDay: 1, amount: 1 },
      ).lean<Array<Pick<LedgerEntryRecord, 'agentGrantId' | 'agentDay' | 'amount'>>>();
    },

    /** The credit mirror of the organization, or null when it does not exist. */
    async creditMirrorOf(orgId: string): Promise<CreditMirror | null> {
      return creditMirrors.findOne({ _id: orgId }, { projection: { creditBalance: 1, budgetRemaining: 1, creditSeq: 1 } });
    },

    /** Copies a ledger head onto the organization unless a later one is already there. */
    async mirrorCreditHead(orgId: string, head: { seq: number; balance: number; budgetRemaining: number | null }): Promise<void> {
      await creditMirrors.updateOne(
        { _id: orgId, $or: [{ creditSeq: { $exists: false } }, { creditSeq: { $lt: head.seq } }] },
        { $set: { creditBalance: head.balance, budgetRemaining: head.budgetRemaining, creditSeq: head.seq } },
      );
    },
  };
}

/** What the credit ledger keeps on the organization (credits.ts): a copy of its head for display; the ledger is the truth. */
export type CreditMirror = Pick<OrganizationRecord, '_id' | 'creditBalance' | 'budgetRemaining' | 'creditSeq'>;

export type CreditStore = ReturnType<typeof createCreditStore>;

/** What a function that reads or writes the ledger takes first. */
export interface CreditStores {
  credits: CreditStore;
}
