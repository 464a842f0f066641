import { firstSessionCommands, type SessionPerson } from '../api/reference/firstCallGuide';
import type { KeysStores } from '../core/keys/store';
import type { TenancyStores } from '../core/tenancy/store';
import { ALL_PERMISSIONS } from '../core/keys/permissions';
import type { TalentStores } from '../core/talent/store';

/**
 * The development key `npm run dev` hands out on a first start, so a new developer's first
 * request answers 200 without copying ids between commands. The organization, workspace and
 * key are made by the same functions as the operator CLI's `org create` and `key create`; the
 * key is stored as a hash only and printed once.
 */
export const DEV_ORG_NAME = 'Development';
export const DEV_ORG_CREDITS = 1000;

export interface FirstKeyChoice {
  /** Whether this start may create the development organization and key. */
  allowed: boolean;
  /** Why not, for the start's output. */
  reason?: string;
}

/**
 * Never in production; never against a store the person supplied (MONGODB_URI), unless they
 * ask with --dev-key; never when they said --no-dev-key.
 */
export function firstKeyChoice(opts: { nodeEnv: string | undefined; storeSupplied: boolean; askedFor: boolean; skipped: boolean }): FirstKeyChoice {
  if (opts.nodeEnv === 'production') return { allowed: false, reason: 'NODE_ENV=production: no development key is created' };
  if (opts.skipped) return { allowed: false, reason: '--no-dev-key: no development key is created' };
  if (opts.storeSupplied && !opts.askedFor) {
    return { allowed: false, reason: 'MONGODB_URI is yours: no development key is created in it (pass --dev-key to create one when it has no organization)' };
  }
  return { allowed: true };
}

export interface DevelopmentKey {
  key: string;
  key_id: string;
  org_id: string;
  workspace_id: string;
}

/** Creates the development organization, workspace and key when the store has no organization; otherwise nothing. */
export async function createDevelopmentKeyIfEmpty(stores: KeysStores & TenancyStores, audience: string): Promise<DevelopmentKey | null> {
  const { createOrganization } = await import('../core/tenancy/provisioning');
  const { createApiKey } = await import('../core/keys/apiKeys');
  if (await stores.tenancy.anyOrganizationStored()) return null;
  const org = await createOrganization(stores, DEV_ORG_NAME, DEV_ORG_CREDITS);
  const created = await createApiKey(stores, { orgId: org.org_id, workspaceId: org.workspace_id, scopes: [...ALL_PERMISSIONS], environment: 'live', audience });
  return { key: created.key, key_id: created.key_id, org_id: org.org_id, workspace_id: org.workspace_id };
}

/** The first organization and workspace in the store, to fill in the "make another key" command. */
export async function firstOrganization(stores: TenancyStores): Promise<{ org_id: string; workspace_id: string } | null> {
  const orgId = await stores.tenancy.oldestOrganizationId();
  if (!orgId) return null;
  const [ws] = await stores.tenancy.workspacesOfOrg(orgId, 'oldest_first', 1);
  return ws ? { org_id: orgId, workspace_id: String(ws._id) } : null;
}

/**
 * The first session's lines (the reference's "First call", with this key and a seeded person
 * filled in): each answers 200 exactly as printed, run in order in one terminal.
 */
export function firstSessionLines(apiUrl: string, key: string, person: SessionPerson): string[] {
  return firstSessionCommands({ baseUrl: apiUrl, key, person });
}

/** A seeded person of the built-in source (every organization may use it), for the printed session. */
export async function sessionPerson(stores: TalentStores): Promise<SessionPerson | null> {
  const { BUILT_IN_SOURCE_ID } = await import('../core/talent/sources');
  const p = await stores.talent.firstPersonOfSource(BUILT_IN_SOURCE_ID);
  return p ? { person_id: p._id, name: p.fullName, profile_url: p.profileUrl } : null;
}

export function keyCreateCommand(admin: string, org: { org_id: string; workspace_id: string } | null): string {
  const ids = org ? `--org ${org.org_id} --workspace ${org.workspace_id}` : '--org <org_id> --workspace <workspace_id>';
  return `${admin} key create ${ids} --scopes ${ALL_PERMISSIONS.join(',')}`;
}
