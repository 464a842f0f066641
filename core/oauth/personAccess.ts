import type { AuditActor } from '../audit/auditActions';
import { recordAuditEvent, type AuditStores } from '../audit/auditLog';
import { addAdminSeat, releaseAdminSeat, roleOf } from '../users/adminSeats';
import type { UserStores } from '../users/store';
import { listGrants, revokeGrants } from './consentGrants';
import { revokeChainsOf } from './tokenChains';
import type { OAuthStores } from './store';

/*
 * What ends a person's access through their sign-ins: disabling them (their browser sessions and
 * every connected application's token chains) and revoking their grants. It sits with the OAuth
 * area, above the users area, because it reaches into both.
 */

/**
 * Ends everything a person's sign-ins opened: browser sessions deleted, and every connected
 * application's token chains revoked (its refresh tokens, and its access tokens, which name
 * their chain and are checked against it on every tool call). Returns how many chains it revoked.
 */
export async function endSignInsOf(stores: OAuthStores & UserStores, userId: string, now: Date): Promise<number> {
  await stores.users.deleteBrowserSessionsOf(userId);
  return revokeChainsOf(stores, userId, undefined, now);
}

/**
 * Disabling stops everything at once: sessions deleted, token chains revoked; every token use and
 * tool call re-reads the user. The last active admin of an organization cannot be disabled.
 */
export async function disableUser(
  stores: OAuthStores & UserStores,
  userId: string,
  now: Date,
): Promise<{ user_id: string; disabled_at: string; revoked_chains: number }> {
  const user = await stores.users.findUser(userId);
  if (!user) throw new Error(`user ${userId} does not exist`);
  if (!user.disabledAt) {
    const wasAdmin = roleOf(user) === 'admin';
    if (wasAdmin) await releaseAdminSeat(stores, user.orgId, userId);
    const changed = await stores.users.markUserDisabled(userId, now);
    // Disabled meanwhile by someone else, who released the seat themselves.
    if (wasAdmin && !changed) await addAdminSeat(stores, user.orgId);
  }
  const revoked = await endSignInsOf(stores, userId, now);
  return { user_id: userId, disabled_at: (user.disabledAt ?? now).toISOString(), revoked_chains: revoked };
}

export async function userGrants(stores: OAuthStores & UserStores, userId: string): Promise<{ user_id: string; grants: unknown[] }> {
  const user = await stores.users.findUser(userId);
  if (!user) throw new Error(`user ${userId} does not exist`);
  const grants = await listGrants(stores, userId);
  return {
    user_id: userId,
    grants: grants.map((g) => ({ client_id: g.clientId, client_name: g.clientName, scope: g.scope, granted_at: g.createdAt.toISOString() })),
  };
}

/**
 * Revokes one of a person's grants (clientId given) or all of them, by the person themselves on
 * "Connected applications" or by the operator, and writes `grant.revoked` when one was revoked:
 * every path that revokes a grant comes through here, so none leaves the audit log out.
 */
export async function revokeUserGrants(
  stores: AuditStores & OAuthStores & UserStores,
  userId: string,
  clientId: string | undefined,
  by: { actor: AuditActor; clientAddress: string | null; at: Date },
): Promise<{ user_id: string; revoked_client_ids: string[] }> {
  const user = await stores.users.findUser(userId);
  if (!user) throw new Error(`user ${userId} does not exist`);
  const revoked = await revokeGrants(stores, userId, clientId, by.at);
  if (revoked.length) {
    await recordAuditEvent(stores, {
      orgId: user.orgId,
      actor: by.actor,
      action: 'grant.revoked',
      target: userId,
      after: { user_id: userId, client_id: clientId ?? null, revoked_client_ids: revoked },
      clientAddress: by.clientAddress,
      now: by.at,
    });
  }
  return { user_id: userId, revoked_client_ids: revoked };
}
