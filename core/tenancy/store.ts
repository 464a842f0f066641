import type { Connection } from 'mongoose';
import { tenancyModels, type ApplicationHolder, type ApplicationRecord, type OrganizationRecord, type WorkspaceRecord } from './models';

export type { ApplicationHolder, ApplicationRecord, OrganizationRecord, WorkspaceRecord } from './models';

/**
 * The tenancy area's store: the one module that reads and writes `organizations`,
 * `workspaces` and `applications`. It answers with plain records; provisioning and the rules
 * of who belongs where live with the callers.
 */

/** The tenancy area's store on the root's connection (core/deps.ts `createStores`). */
export function createTenancyStore(connection: Connection) {
  const { organizations: Organization, workspaces: Workspace, applications: Application } = tenancyModels(connection);
  return {
    // ---- organizations ------------------------------------------------------------------------

    async insertOrganization(org: { _id: string; name: string; creditBalance: number }): Promise<void> {
      await Organization.create(org);
    },

    /** The organization, or null. */
    async findOrganization(orgId: string): Promise<OrganizationRecord | null> {
      return Organization.findById(orgId).lean<OrganizationRecord>();
    },

    /** Stores the organization's name; false when there is no such organization. */
    async storeOrganizationName(orgId: string, name: string): Promise<boolean> {
      const res = await Organization.updateOne({ _id: orgId }, { $set: { name } });
      return res.matchedCount === 1;
    },

    /** Sets whether the organization (or, with `all`, every organization) requires a second factor; answers how many matched. */
    async storeSecondFactorRequirement(orgId: string | { all: true }, required: boolean): Promise<number> {
      const filter = typeof orgId === 'string' ? { _id: orgId } : {};
      return (await Organization.updateMany(filter, { $set: { requireSecondFactor: required } })).matchedCount;
    },

    async organizationExists(orgId: string): Promise<boolean> {
      return (await Organization.exists({ _id: orgId })) !== null;
    },

    /** Whether the store holds any organization (an estimate: the collection's document count). */
    async anyOrganizationStored(): Promise<boolean> {
      return (await Organization.estimatedDocumentCount()) > 0;
    },

    /** The oldest organization's id, or null when there is none. */
    async oldestOrganizationId(): Promise<string | null> {
      const org = await Organization.findOne({}, { _id: 1 }).sort({ createdAt: 1 }).lean<Pick<OrganizationRecord, '_id'>>();
      return org ? String(org._id) : null;
    },

    /** The organization's enabled sources (none when it does not exist). */
    async enabledSourcesOf(orgId: string): Promise<string[]> {
      return (await Organization.findById(orgId, { enabledSources: 1 }).lean<Pick<OrganizationRecord, 'enabledSources'>>())?.enabledSources ?? [];
    },

    /** Adds or removes an enabled source; false when the organization does not exist. */
    async storeSourceEnabled(orgId: string, sourceId: string, enabled: boolean): Promise<boolean> {
      const res = await Organization.updateOne({ _id: orgId }, enabled ? { $addToSet: { enabledSources: sourceId } } : { $pull: { enabledSources: sourceId } });
      return res.matchedCount === 1;
    },

    // ---- workspaces ---------------------------------------------------------------------------

    async insertWorkspace(ws: { _id: string; orgId: string; name?: string | null }): Promise<void> {
      await Workspace.create(ws);
    },

    /** A workspace of this organization, or null: another organization's reads as absent. */
    async findWorkspaceOfOrg(orgId: string, workspaceId: string): Promise<WorkspaceRecord | null> {
      return Workspace.findOne({ _id: workspaceId, orgId }).lean<WorkspaceRecord>();
    },

    async workspaceExistsInOrg(orgId: string, workspaceId: string): Promise<boolean> {
      return (await Workspace.exists({ _id: workspaceId, orgId })) !== null;
    },

    /** The organization a workspace belongs to, or null when it does not exist. */
    async orgOfWorkspace(workspaceId: string): Promise<string | null> {
      const ws = await Workspace.findById(workspaceId, { orgId: 1 }).lean<Pick<WorkspaceRecord, 'orgId'>>();
      return ws ? String(ws.orgId) : null;
    },

    /** Up to `limit` of the organization's workspaces (id and name), oldest first or by id. */
    async workspacesOfOrg(orgId: string, order: 'oldest_first' | 'by_id', limit?: number): Promise<Array<Pick<WorkspaceRecord, '_id' | 'name'>>> {
      const query = Workspace.find({ orgId }, { name: 1 }).sort(order === 'by_id' ? { _id: 1 } : { createdAt: 1 });
      if (limit !== undefined) query.limit(limit);
      return query.lean<Array<Pick<WorkspaceRecord, '_id' | 'name'>>>();
    },

    // ---- applications -------------------------------------------------------------------------

    async insertApplication(app: { _id: string; orgId: string; name?: string | null; holder?: ApplicationHolder }): Promise<void> {
      await Application.create(app);
    },

    /** The organization's own applications (where keys go; not a person's or an M2M client's), oldest first. */
    async keyApplicationsOfOrg(orgId: string): Promise<Array<Pick<ApplicationRecord, '_id' | 'name'>>> {
      return Application.find({ orgId, holder: null }, { name: 1 }).sort({ createdAt: 1, _id: 1 }).lean<Array<Pick<ApplicationRecord, '_id' | 'name'>>>();
    },

    /** Whether this is one of the organization's own applications, where its keys may go. */
    async keyApplicationExistsInOrg(orgId: string, applicationId: string): Promise<boolean> {
      return (await Application.exists({ _id: applicationId, orgId, holder: null })) !== null;
    },

    async applicationExistsInOrg(orgId: string, applicationId: string): Promise<boolean> {
      return (await Application.exists({ _id: applicationId, orgId })) !== null;
    },

    /** The organization's oldest own application's id (the default home of its keys), or null when it has none. */
    async oldestApplicationOfOrg(orgId: string): Promise<string | null> {
      const app = await Application.findOne({ orgId, holder: null }, { _id: 1 }).sort({ createdAt: 1 }).lean<Pick<ApplicationRecord, '_id'>>();
      return app ? app._id : null;
    },
  };
}

export type TenancyStore = ReturnType<typeof createTenancyStore>;

/** What the area's functions read and write through: the root's stores (`deps.stores`) or any object holding the tenancy store. */
export interface TenancyStores {
  tenancy: TenancyStore;
}
