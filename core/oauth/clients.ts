import { newId } from '../ids';
import { isPermission, PERMISSIONS, type Permission } from '../keys/permissions';
import type { TenancyStores } from '../tenancy/store';
import { requireOrganization } from '../tenancy/provisioning';
import { generateClientSecret, hashClientSecret, matchesLiveSecret, rotateSecrets } from './clientSecrets';
import type { OAuthStores, ClientRecord } from './store';
import { revokePublicClient } from './publicClients';

export const MCP_TOOLS_SCOPE = 'mcp:tools';

/** What an M2M client may do through tools unless the operator narrows it with --scopes. */
export const DEFAULT_CLIENT_PERMISSIONS: Permission[] = [
  PERMISSIONS.candidatesSearch,
  PERMISSIONS.profilesUnlock,
  PERMISSIONS.personMatchesCreate,
  PERMISSIONS.jobsWrite,
  PERMISSIONS.jobsRead,
];

export type { ClientRecord } from './store';

export interface CreateClientInput {
  orgId: string;
  /** The workspace the client acts in (its jobs, its webhook endpoint); a new one of its own when absent. */
  workspaceId?: string;
  rateLimitPerMinute: number;
  permissions?: string[];
  name?: string;
}

/** Operator provisioning (SPEC 5.2 item 2): the secret is returned here once, stored as a hash. */
export async function createClient(
  stores: TenancyStores & OAuthStores,
  input: CreateClientInput,
  now: Date,
): Promise<{
  client_id: string;
  client_secret: string;
  org_id: string;
  workspace_id: string;
  application_id: string;
  scopes: string[];
  rate_limit_per_minute: number;
}> {
  await requireOrganization(stores, input.orgId);
  if (!Number.isInteger(input.rateLimitPerMinute) || input.rateLimitPerMinute < 1)
    throw new Error('rate limit must be a positive integer (requests per minute)');
  const permissions = [...new Set(input.permissions ?? DEFAULT_CLIENT_PERMISSIONS)];
  const unknown = permissions.filter((p) => !isPermission(p));
  if (unknown.length) throw new Error(`unknown scopes: ${unknown.join(', ')}`);
  const clientId = newId('cli');
  const workspaceId = input.workspaceId ?? newId('ws');
  const applicationId = newId('app');
  if (input.workspaceId) {
    if ((await stores.tenancy.orgOfWorkspace(input.workspaceId)) !== input.orgId)
      throw new Error(`workspace ${input.workspaceId} is not a workspace of organization ${input.orgId}`);
  } else {
    await stores.tenancy.insertWorkspace({ _id: workspaceId, orgId: input.orgId, name: `M2M client ${clientId}` });
  }
  await stores.tenancy.insertApplication({ _id: applicationId, orgId: input.orgId, name: `M2M client ${clientId}`, holder: 'm2m_client' });
  const secret = generateClientSecret();
  await stores.oauth.insertOAuthClient({
    _id: clientId,
    orgId: input.orgId,
    workspaceId,
    applicationId,
    name: input.name ?? null,
    clientType: 'confidential',
    grantTypes: ['client_credentials', 'refresh_token'],
    tokenEndpointAuthMethods: ['client_secret_basic', 'client_secret_post'],
    oauthScopes: [MCP_TOOLS_SCOPE],
    permissions,
    rateLimitPerMinute: input.rateLimitPerMinute,
    secrets: [{ _id: newId('cs'), hash: hashClientSecret(secret), createdAt: now, expiresAt: null }],
  });
  return {
    client_id: clientId,
    client_secret: secret,
    org_id: input.orgId,
    workspace_id: workspaceId,
    application_id: applicationId,
    scopes: permissions,
    rate_limit_per_minute: input.rateLimitPerMinute,
  };
}

/**
 * Mints a new secret (shown once). The previous secret keeps working for `graceSeconds`
 * (the CLI's default is M2M_SECRET_ROTATION_GRACE_SECONDS; 0 ends it at once, for an exposed secret),
 * so a deployment can switch without downtime; older secrets are dropped.
 */
export async function rotateClientSecret(
  stores: OAuthStores,
  clientId: string,
  graceSeconds: number,
  now: Date,
): Promise<{ client_id: string; client_secret: string; previous_secret_expires_at: string | null }> {
  if (!Number.isInteger(graceSeconds) || graceSeconds < 0) throw new Error('grace seconds must be a non-negative integer');
  const client = await stores.oauth.findOAuthClient(clientId);
  if (!client) throw new Error(`client ${clientId} does not exist`);
  if (client.revokedAt) throw new Error(`client ${clientId} is revoked`);
  const secret = generateClientSecret();
  const next = { _id: newId('cs'), hash: hashClientSecret(secret), createdAt: now, expiresAt: null };
  const secrets = rotateSecrets(client.secrets, next, now, graceSeconds);
  await stores.oauth.setOAuthClientSecrets(clientId, secrets);
  const previous = secrets.find((s) => s.expiresAt !== null);
  return { client_id: clientId, client_secret: secret, previous_secret_expires_at: previous?.expiresAt?.toISOString() ?? null };
}

/**
 * Revocation takes effect on the next request everywhere: the token endpoint and the tool
 * server read the client from the store on every request, and its refresh tokens are revoked.
 */
export async function revokeClient(stores: OAuthStores, clientId: string, now: Date): Promise<{ client_id: string; revoked_at: string }> {
  await stores.oauth.revokeOAuthClientRecord(clientId, now);
  const doc = await stores.oauth.findOAuthClient(clientId);
  if (!doc) {
    // A public client of browser sign-in (registered, or a metadata-document URL): refused from now on, its chains revoked.
    if (!(await revokePublicClient(stores, clientId, now))) throw new Error(`client ${clientId} does not exist`);
    await stores.oauth.revokeTokenChains({ clientId }, now);
    await stores.oauth.revokeRefreshTokens({ clientId }, now);
    return { client_id: clientId, revoked_at: now.toISOString() };
  }
  await stores.oauth.revokeRefreshTokens({ clientId }, now);
  return { client_id: clientId, revoked_at: (doc.revokedAt ?? now).toISOString() };
}

export async function listClients(stores: TenancyStores & OAuthStores, orgId: string, now: Date): Promise<{ org_id: string; clients: unknown[] }> {
  await requireOrganization(stores, orgId);
  const docs = await stores.oauth.oauthClientsOf(orgId);
  return {
    org_id: orgId,
    clients: docs.map((c) => ({
      client_id: c._id,
      name: c.name,
      workspace_id: c.workspaceId,
      application_id: c.applicationId,
      scopes: c.permissions,
      grant_types: c.grantTypes,
      rate_limit_per_minute: c.rateLimitPerMinute,
      live_secrets: c.secrets.filter((s) => s.expiresAt === null || s.expiresAt > now).length,
      created_at: c.createdAt?.toISOString() ?? null,
      revoked_at: c.revokedAt?.toISOString() ?? null,
    })),
  };
}

/** The client if it exists and is not revoked; read from the store every time (no cache outlives a revocation). */
export async function findActiveClient(stores: OAuthStores, clientId: string): Promise<ClientRecord | null> {
  if (typeof clientId !== 'string' || clientId.length > 100) return null;
  const doc = await stores.oauth.findOAuthClient(clientId);
  if (!doc || doc.revokedAt) return null;
  return doc;
}

/** Client authentication at the token endpoint: null for an unknown, revoked or wrong-secret client. */
export async function authenticateClient(stores: OAuthStores, clientId: string, secret: string, now: Date): Promise<ClientRecord | null> {
  const client = await findActiveClient(stores, clientId);
  if (!client) return null;
  return matchesLiveSecret(secret, client.secrets, now) ? client : null;
}
