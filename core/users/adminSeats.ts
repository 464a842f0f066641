import { Problem } from '../problems';
import { isDuplicateKeyError } from '../store/connection';
import type { UserStores } from './store';

/**
 * The rule "an organization always keeps at least one active admin", decided on one counter
 * document per organization (`org_admin_counts`) rather than on a count of users read
 * and then acted on: two admins demoting each other at once both read two admins, and both
 * demotions would go through. A conditional decrement lets exactly one of them take the seat.
 */

export type Role = 'admin' | 'member';
export const ROLES: readonly Role[] = ['admin', 'member'];

export function isRole(value: unknown): value is Role {
  return value === 'admin' || value === 'member';
}

/** A stored role: documents written before roles existed have none and are members. */
export function roleOf(user: { role?: string | null }): Role {
  return user.role === 'admin' ? 'admin' : 'member';
}

/** The active admins the users collection holds, the counter's starting value. */
function countActiveAdmins(stores: UserStores, orgId: string): Promise<number> {
  return stores.users.countActiveAdmins(orgId);
}

/**
 * Makes sure the counter exists before any change it must count: whoever inserts it first
 * counted the users before this caller's change, so the change is counted once, by the caller.
 */
export async function ensureAdminCount(stores: UserStores, orgId: string): Promise<void> {
  if (await stores.users.adminCountExists(orgId)) return;
  const active = await countActiveAdmins(stores, orgId);
  try {
    await stores.users.insertAdminCount(orgId, active);
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
}

/** Counts one more active admin; call after the user document says so. */
export async function addAdminSeat(stores: UserStores, orgId: string): Promise<void> {
  await stores.users.incrementAdminCount(orgId);
}

/**
 * Takes one active admin away from the count, or refuses with `last_admin` when it is the last.
 * Call before the user document stops being an active admin; give the seat back with
 * `addAdminSeat` if that change then does not happen.
 */
export async function releaseAdminSeat(stores: UserStores, orgId: string, userId: string): Promise<void> {
  await ensureAdminCount(stores, orgId);
  if (!(await stores.users.decrementAdminCountAboveOne(orgId))) {
    throw new Problem('last_admin', `User ${userId} is the last active admin of organization ${orgId}; make another person admin first.`);
  }
}
