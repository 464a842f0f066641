import { typedCollection } from '../store/typedCollection';
import { Application, Organization, Workspace } from './models';

/**
 * The tenancy area's store: the one module that reads and writes `organizations`,
 * `workspaces` and `applications`. It answers with plain records; provisioning and the rules
 * of who belongs where live with the callers.
 */

export interface OrganizationRecord {
  _id: string;
  name: string;
  /** A mirror of the ledger head for display (core/credits); the ledger is the truth. */
  creditBalance: number;
  /** Organization spending budget mirrored from the ledger head; null when none is set. */
  budgetRemaining: number | null;
  /** Search sources enabled besides the built-in pool. */
  enabledSources: string[];
  /** Everyone must have a second factor; absent on documents written before the policy existed: false. */
  requireSecondFactor?: boolean;
  /** The ledger entry the credit mirror was copied from; absent before the first. */
  creditSeq?: number;
  createdAt?: Date;
  updatedAt?: Date;
}

/** What the credit ledger keeps on the organization (core/credits/credits.ts). */
export type CreditMirror = Pick<OrganizationRecord, '_id' | 'creditBalance' | 'budgetRemaining' | 'creditSeq'>;

export interface WorkspaceRecord {
  _id: string;
  orgId: string;
  name?: string | null;
  createdAt?: Date;
  updatedAt?: Date;
}

/** Whose an application is; null (or absent) for the organization's own, where its keys go. */
export type ApplicationHolder = 'person' | 'm2m_client';

export interface ApplicationRecord {
  _id: string;
  orgId: string;
  name?: string | null;
  holder?: ApplicationHolder | null;
  createdAt?: Date;
  updatedAt?: Date;
}

/** The mirror's fields the schema does not declare (`creditSeq`) are written through the driver, which keeps them as they are. */
const organizations = () => typedCollection<Partial<CreditMirror> & { _id: string }>(Organization);

// ---- organizations ------------------------------------------------------------------------

export async function insertOrganization(org: { _id: string; name: string; creditBalance: number }): Promise<void> {
  await Organization.create(org);
}

/** The organization, or null. */
export async function findOrganization(orgId: string): Promise<OrganizationRecord | null> {
  return Organization.findById(orgId).lean<OrganizationRecord>();
}

/** Stores the organization's name; false when there is no such organization. */
export async function storeOrganizationName(orgId: string, name: string): Promise<boolean> {
  const res = await Organization.updateOne({ _id: orgId }, { $set: { name } });
  return res.matchedCount === 1;
}

/** Sets whether the organization (or, with `all`, every organization) requires a second factor; answers how many matched. */
export async function storeSecondFactorRequirement(orgId: string | { all: true }, required: boolean): Promise<number> {
  const filter = typeof orgId === 'string' ? { _id: orgId } : {};
  return (await Organization.updateMany(filter, { $set: { requireSecondFactor: required } })).matchedCount;
}

export async function organizationExists(orgId: string): Promise<boolean> {
  return (await Organization.exists({ _id: orgId })) !== null;
}

/** Whether the store holds any organization (an estimate: the collection's document count). */
export async function anyOrganizationStored(): Promise<boolean> {
  return (await Organization.estimatedDocumentCount()) > 0;
}

/** The oldest organization's id, or null when there is none. */
export async function oldestOrganizationId(): Promise<string | null> {
  const org = await Organization.findOne({}, { _id: 1 }).sort({ createdAt: 1 }).lean<Pick<OrganizationRecord, '_id'>>();
  return org ? String(org._id) : null;
}

/** The organization's enabled sources (none when it does not exist). */
export async function enabledSourcesOf(orgId: string): Promise<string[]> {
  return (await Organization.findById(orgId, { enabledSources: 1 }).lean<Pick<OrganizationRecord, 'enabledSources'>>())?.enabledSources ?? [];
}

/** Adds or removes an enabled source; false when the organization does not exist. */
export async function storeSourceEnabled(orgId: string, sourceId: string, enabled: boolean): Promise<boolean> {
  const res = await Organization.updateOne({ _id: orgId }, enabled ? { $addToSet: { enabledSources: sourceId } } : { $pull: { enabledSources: sourceId } });
  return res.matchedCount === 1;
}

/** The credit mirror of the organization, or null when it does not exist. */
export async function creditMirrorOf(orgId: string): Promise<CreditMirror | null> {
  return (await organizations().findOne({ _id: orgId }, { projection: { creditBalance: 1, budgetRemaining: 1, creditSeq: 1 } })) as CreditMirror | null;
}

/** Copies a ledger head onto the organization unless a later one is already there. */
export async function mirrorCreditHead(orgId: string, head: { seq: number; balance: number; budgetRemaining: number | null }): Promise<void> {
  await organizations().updateOne(
    { _id: orgId, $or: [{ creditSeq: { $exists: false } }, { creditSeq: { $lt: head.seq } }] },
    { $set: { creditBalance: head.balance, budgetRemaining: head.budgetRemaining, creditSeq: head.seq } },
  );
}

// ---- workspaces ---------------------------------------------------------------------------

export async function insertWorkspace(ws: { _id: string; orgId: string; name?: string | null }): Promise<void> {
  await Workspace.create(ws);
}

/** A workspace of this organization, or null: another organization's reads as absent. */
export async function findWorkspaceOfOrg(orgId: string, workspaceId: string): Promise<WorkspaceRecord | null> {
  return Workspace.findOne({ _id: workspaceId, orgId }).lean<WorkspaceRecord>();
}

export async function workspaceExistsInOrg(orgId: string, workspaceId: string): Promise<boolean> {
  return (await Workspace.exists({ _id: workspaceId, orgId })) !== null;
}

/** The organization a workspace belongs to, or null when it does not exist. */
export async function orgOfWorkspace(workspaceId: string): Promise<string | null> {
  const ws = await Workspace.findById(workspaceId, { orgId: 1 }).lean<Pick<WorkspaceRecord, 'orgId'>>();
  return ws ? String(ws.orgId) : null;
}

/** Up to `limit` of the organization's workspaces (id and name), oldest first or by id. */
export async function workspacesOfOrg(orgId: string, order: 'oldest_first' | 'by_id', limit?: number): Promise<Array<Pick<WorkspaceRecord, '_id' | 'name'>>> {
  const query = Workspace.find({ orgId }, { name: 1 }).sort(order === 'by_id' ? { _id: 1 } : { createdAt: 1 });
  if (limit !== undefined) query.limit(limit);
  return query.lean<Array<Pick<WorkspaceRecord, '_id' | 'name'>>>();
}

// ---- applications -------------------------------------------------------------------------

export async function insertApplication(app: { _id: string; orgId: string; name?: string | null; holder?: ApplicationHolder }): Promise<void> {
  await Application.create(app);
}

/** The organization's own applications (where keys go; not a person's or an M2M client's), oldest first. */
export async function keyApplicationsOfOrg(orgId: string): Promise<Array<Pick<ApplicationRecord, '_id' | 'name'>>> {
  return Application.find({ orgId, holder: null }, { name: 1 }).sort({ createdAt: 1, _id: 1 }).lean<Array<Pick<ApplicationRecord, '_id' | 'name'>>>();
}

/** Whether this is one of the organization's own applications, where its keys may go. */
export async function keyApplicationExistsInOrg(orgId: string, applicationId: string): Promise<boolean> {
  return (await Application.exists({ _id: applicationId, orgId, holder: null })) !== null;
}

export async function applicationExistsInOrg(orgId: string, applicationId: string): Promise<boolean> {
  return (await Application.exists({ _id: applicationId, orgId })) !== null;
}

/** The organization's oldest own application's id (the default home of its keys), or null when it has none. */
export async function oldestApplicationOfOrg(orgId: string): Promise<string | null> {
  const app = await Application.findOne({ orgId, holder: null }, { _id: 1 }).sort({ createdAt: 1 }).lean<Pick<ApplicationRecord, '_id'>>();
  return app ? app._id : null;
}
