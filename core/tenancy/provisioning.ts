import { newId } from '../ids';
import type { OrganizationRecord, TenancyStores } from './store';

export interface CreatedOrganization {
  org_id: string;
  workspace_id: string;
  application_id: string;
}

/** Operator provisioning: an organization with a first workspace and application. */
export async function createOrganization(stores: TenancyStores, name: string, credits = 0): Promise<CreatedOrganization> {
  if (!Number.isInteger(credits) || credits < 0) throw new Error('credits must be a non-negative integer');
  const orgId = newId('org');
  await stores.tenancy.insertOrganization({ _id: orgId, name, creditBalance: credits });
  const workspaceId = newId('ws');
  await stores.tenancy.insertWorkspace({ _id: workspaceId, orgId });
  const applicationId = newId('app');
  await stores.tenancy.insertApplication({ _id: applicationId, orgId });
  return { org_id: orgId, workspace_id: workspaceId, application_id: applicationId };
}

export async function createWorkspace(stores: TenancyStores, orgId: string, name?: string): Promise<{ workspace_id: string }> {
  await requireOrganization(stores, orgId);
  const workspaceId = newId('ws');
  await stores.tenancy.insertWorkspace({ _id: workspaceId, orgId, name: name ?? null });
  return { workspace_id: workspaceId };
}

export async function createApplication(stores: TenancyStores, orgId: string, name?: string): Promise<{ application_id: string }> {
  await requireOrganization(stores, orgId);
  const applicationId = newId('app');
  await stores.tenancy.insertApplication({ _id: applicationId, orgId, name: name ?? null });
  return { application_id: applicationId };
}

export async function requireOrganization(stores: TenancyStores, orgId: string): Promise<OrganizationRecord> {
  const org = await stores.tenancy.findOrganization(orgId);
  if (!org) throw new Error(`organization ${orgId} does not exist`);
  return org;
}
