import { createApiKey } from '../../core/keys/apiKeys';
import { ALL_PERMISSIONS } from '../../core/keys/permissions';
import { createOrganization } from '../../core/tenancy/provisioning';
import type { KeysStores } from '../../core/keys/store';
import type { TenancyStores } from '../../core/tenancy/store';
import type { ApiClient } from './apiClient';

/**
 * The organizations of a chaos run, provisioned through the functions the operator CLI uses;
 * each registers a webhook endpoint at its own path of the run's HTTPS receiver through the API.
 */
export interface ChaosTenant {
  index: number;
  orgId: string;
  key: string;
  /** Receiver path of its endpoint, `/t<index>`. */
  path: string;
  /** The endpoint's `whsec_` secret, to verify what arrives. */
  secret: string;
  openingCredits: number;
}

export async function provisionTenant(
  stores: KeysStores & TenancyStores,
  api: ApiClient,
  receiverUrl: string,
  index: number,
  credits: number,
): Promise<ChaosTenant> {
  const org = await createOrganization(stores, `chaos org ${index}`, credits);
  const k = await createApiKey(stores, {
    orgId: org.org_id,
    workspaceId: org.workspace_id,
    applicationId: org.application_id,
    scopes: [...ALL_PERMISSIONS],
    audience: 'developer-api',
  });
  const path = `/t${index}`;
  const res = await api.call(org.org_id, k.key, 'register endpoint', 'POST', '/v1/webhook-endpoints', { url: `${receiverUrl}${path}` });
  if (res.status !== 201) throw new Error(`endpoint registration for tenant ${index} answered ${res.status} ${JSON.stringify(res.json)}`);
  return { index, orgId: org.org_id, key: k.key, path, secret: res.json.secret, openingCredits: credits };
}
