import { newId } from '../ids';
import { findOrganization, insertApplication, insertOrganization, insertWorkspace, type OrganizationRecord } from './store';

export interface CreatedOrganization {
  org_id: string;
  workspace_id: string;
  application_id: string;
}

/** Operator provisioning: an organization with a first workspace and application. */
export async function createOrganization(name: string, credits = 0): Promise<CreatedOrganization> {
  if (!Number.isInteger(credits) || credits < 0) throw new Error('credits must be a non-negative integer');
  const orgId = newId('org');
  await insertOrganization({ _id: orgId, name, creditBalance: credits });
  const workspaceId = newId('ws');
  await insertWorkspace({ _id: workspaceId, orgId });
  const applicationId = newId('app');
  await insertApplication({ _id: applicationId, orgId });
  return { org_id: orgId, workspace_id: workspaceId, application_id: applicationId };
}

export async function createWorkspace(orgId: string, name?: string): Promise<{ workspace_id: string }> {
  await requireOrganization(orgId);
  const workspaceId = newId('ws');
  await insertWorkspace({ _id: workspaceId, orgId, name: name ?? null });
  return { workspace_id: workspaceId };
}

export async function createApplication(orgId: string, name?: string): Promise<{ application_id: string }> {
  await requireOrganization(orgId);
  const applicationId = newId('app');
  await insertApplication({ _id: applicationId, orgId, name: name ?? null });
  return { application_id: applicationId };
}

export async function requireOrganization(orgId: string): Promise<OrganizationRecord> {
  const org = await findOrganization(orgId);
  if (!org) throw new Error(`organization ${orgId} does not exist`);
  return org;
}
