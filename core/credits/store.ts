import { appendEntry, entryId, headSeq, readEntry, type AppendOutcome, type ChainHeads } from './chain';
import { typedCollection } from '../store/typedCollection';
import { LedgerEntry } from './models';
import mongoose from 'mongoose';
import type { OrganizationRecord } from '../tenancy/store';

/** Credits each application spent on one UTC day, as the ledger's head records them (agentAllowance.ts reads it). */
export interface AgentSpendState {
  day: string;
  byGrant: Record<string, number>;
}

/**
 * The credits area's store: the one module that reads and writes `credit_ledger`. It answers
 * with plain records; funding rules, charges and budgets live with the callers.
 */

/** An entry of an organization's ledger chain (chain.ts), `_id = <org_id>:<seq>`: one movement and the funding state after it. */
export interface LedgerEntryRecord {
  _id: string;
  chainId: string;
  seq: number;
  receiptId: string;
  chargeKey: string;
  kind: 'opening' | 'grant' | 'charge' | 'budget';
  orgId: string;
  familyId: string | null;
  operation: string | null;
  amount: number;
  units?: number;
  requestKey?: string;
  balanceAfter: number;
  orgBudgetAfter: number | null;
  familyBudgetsAfter: Record<string, number>;
  /** Credits connected AI applications spent on the latest day (agentAllowance.ts); absent until one spends. */
  agentSpendAfter?: AgentSpendState;
  /** On a tool call's charge for a person's connected application: its grant, client, name and UTC day. */
  agentGrantId?: string;
  agentClientId?: string;
  agentClientName?: string;
  agentDay?: string;
  createdAt: Date;
}

/** An entry before the chain gives it its place (`_id`, `chainId`, `seq`). */
export type NewLedgerEntry = Omit<LedgerEntryRecord, '_id' | 'chainId' | 'seq'>;

/**
 * The head seq of the organization's ledger (-1 when empty), probing from `hint` or the head
 * `heads` holds, which learn the head found.
 * FerretDB: concurrent updates are lost, so the ledger is an append-only chain of unique inserts.
 */
export function ledgerHeadSeq(orgId: string, hint = -1, heads?: ChainHeads): Promise<number> {
  return headSeq(LedgerEntry, orgId, hint, heads);
}

/** Entry `seq` of the organization's ledger, or null. */
export function readLedgerEntry(orgId: string, seq: number): Promise<LedgerEntryRecord | null> {
  return readEntry<LedgerEntryRecord>(LedgerEntry, orgId, seq);
}

/** Inserts entry `seq`: 'conflict' when that seq or the entry's chargeKey or receiptId is taken; `heads` learn an appended seq. */
export function appendLedgerEntry(orgId: string, seq: number, entry: NewLedgerEntry, heads?: ChainHeads): Promise<AppendOutcome> {
  return appendEntry(LedgerEntry, orgId, seq, { ...entry }, heads);
}

/** The entry under `chargeKey` (of any kind), or null. */
export async function ledgerEntryOfChargeKey(chargeKey: string): Promise<LedgerEntryRecord | null> {
  return LedgerEntry.findOne({ chargeKey }).lean<LedgerEntryRecord>();
}

/** The charge entry under `chargeKey`, or null. */
export async function chargeEntryOfChargeKey(chargeKey: string): Promise<LedgerEntryRecord | null> {
  return LedgerEntry.findOne({ chargeKey, kind: 'charge' }).lean<LedgerEntryRecord>();
}

/**
 * The organization's entries `top - size + 1 .. top` (those that exist), newest first.
 * FerretDB: a `_id: {$in}` read is answered from the index; a sorted query reads every entry first.
 */
export async function ledgerWindow(orgId: string, top: number, size: number): Promise<LedgerEntryRecord[]> {
  const ids: string[] = [];
  for (let seq = top; seq > top - size && seq >= 0; seq--) ids.push(entryId(orgId, seq));
  const docs = await LedgerEntry.find({ _id: { $in: ids } }).lean<LedgerEntryRecord[]>();
  return docs.sort((x, y) => y.seq - x.seq);
}

/** When entry `seq` of the organization's ledger was made, or null when it does not exist. */
export async function ledgerEntryTime(orgId: string, seq: number): Promise<Date | null> {
  return (await LedgerEntry.findById(entryId(orgId, seq), { createdAt: 1 }).lean<Pick<LedgerEntryRecord, 'createdAt'>>())?.createdAt ?? null;
}

/** Every entry of these organizations' ledgers (any order): the chaos run's audit of the chains. */
export async function ledgerEntriesOfOrgs(orgIds: readonly string[]): Promise<LedgerEntryRecord[]> {
  return LedgerEntry.find({ orgId: { $in: [...orgIds] } }).lean<LedgerEntryRecord[]>();
}

/** The organization's newest entry by a sorted query, or null (benchmark seeding; the domain probes the chain instead). */
export async function newestLedgerEntryOfOrg(orgId: string): Promise<LedgerEntryRecord | null> {
  return LedgerEntry.findOne({ orgId }).sort({ orgId: 1, seq: -1 }).lean<LedgerEntryRecord>();
}

/** Stores entries that continue chains, unordered (benchmark seeding: the caller numbers them). */
export async function insertLedgerEntries(entries: LedgerEntryRecord[]): Promise<void> {
  await typedCollection<LedgerEntryRecord>(LedgerEntry).insertMany(entries, { ordered: false });
}

/** The charges connected applications made under these grants on `fromDay` or later (the allowance's UTC days). */
export async function agentChargesSince(
  grantIds: readonly string[],
  fromDay: string,
): Promise<Array<Pick<LedgerEntryRecord, 'agentGrantId' | 'agentDay' | 'amount'>>> {
  if (!grantIds.length) return [];
  return LedgerEntry.find(
    { agentGrantId: { $in: [...grantIds] }, agentDay: { $gte: fromDay }, kind: 'charge' },
    { agentGrantId: 1, agentDay: 1, amount: 1 },
  ).lean<Array<Pick<LedgerEntryRecord, 'agentGrantId' | 'agentDay' | 'amount'>>>();
}

// ---- the credit mirror on the organization ------------------------------------------------

/** What the credit ledger keeps on the organization (credits.ts): a copy of its head for display; the ledger is the truth. */
export type CreditMirror = Pick<OrganizationRecord, '_id' | 'creditBalance' | 'budgetRemaining' | 'creditSeq'>;

// The mirror's fields belong to the ledger, the rest of the organization to core/tenancy; they
// are written through the driver, which keeps the fields the tenancy schema does not declare.
const creditMirrors = () => mongoose.connection.collection<CreditMirror>('organizations');

/** The credit mirror of the organization, or null when it does not exist. */
export async function creditMirrorOf(orgId: string): Promise<CreditMirror | null> {
  return creditMirrors().findOne({ _id: orgId }, { projection: { creditBalance: 1, budgetRemaining: 1, creditSeq: 1 } });
}

/** Copies a ledger head onto the organization unless a later one is already there. */
export async function mirrorCreditHead(orgId: string, head: { seq: number; balance: number; budgetRemaining: number | null }): Promise<void> {
  await creditMirrors().updateOne(
    { _id: orgId, $or: [{ creditSeq: { $exists: false } }, { creditSeq: { $lt: head.seq } }] },
    { $set: { creditBalance: head.balance, budgetRemaining: head.budgetRemaining, creditSeq: head.seq } },
  );
}
