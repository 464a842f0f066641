import { createApiKey } from '../../core/keys/apiKeys';
import { ALL_PERMISSIONS, type Permission } from '../../core/keys/permissions';
import { createOrganization } from '../../core/tenancy/provisioning';

export interface TestTenant {
  orgId: string;
  workspaceId: string;
  applicationId: string;
  key: string;
  keyId: string;
  familyId: string;
}

/** Provisions an organization with a live key, through the same functions the operator CLI uses. */
export async function createTenant(opts: { credits?: number; scopes?: readonly Permission[]; audience?: string } = {}): Promise<TestTenant> {
  const org = await createOrganization(`test org ${Date.now()}`, opts.credits ?? 0);
  const k = await createApiKey({
    orgId: org.org_id,
    workspaceId: org.workspace_id,
    applicationId: org.application_id,
    scopes: [...(opts.scopes ?? ALL_PERMISSIONS)],
    audience: opts.audience ?? 'developer-api',
  });
  return { orgId: org.org_id, workspaceId: org.workspace_id, applicationId: org.application_id, key: k.key, keyId: k.key_id, familyId: k.family_id };
}

export async function addKey(t: TestTenant, scopes: readonly Permission[], extra: { environment?: 'live' | 'test'; audience?: string } = {}) {
  return createApiKey({
    orgId: t.orgId,
    workspaceId: t.workspaceId,
    applicationId: t.applicationId,
    scopes: [...scopes],
    environment: extra.environment,
    audience: extra.audience ?? 'developer-api',
  });
}
